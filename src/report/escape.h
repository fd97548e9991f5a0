/*
 * report/escape.h - every string that comes from a model is attacker-controlled: these
 * write it escaped for the format it lands in.
 */
#ifndef OM_ESCAPE_H
#define OM_ESCAPE_H

#include "core/out.h"

/* HTML text and attribute values: & < > " ' become entities; control characters '?'. */
void om_out_html(om_out *o, const char *s);
/* XML (JUnit, SVG): as HTML, and characters XML 1.0 forbids become '?'. */
void om_out_xml(om_out *o, const char *s);
/* A Markdown table cell: HTML-escaped, and | ` * _ [ ] \ escaped, newlines made spaces. */
void om_out_md(om_out *o, const char *s);
/* A CSV cell (RFC 4180): always quoted, quotes doubled; a cell that a spreadsheet would
 * run as a formula (starting with = + - @, tab or CR) gets a leading apostrophe. */
void om_out_csv(om_out *o, const char *s);

#endif /* OM_ESCAPE_H */

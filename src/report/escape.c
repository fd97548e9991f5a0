/*
 * report/escape.c - format-specific escaping of model strings (see escape.h).
 */
#include "escape.h"

static void html_char(om_out *o, unsigned char c)
{
    switch (c) {
    case '&': om_out_str(o, "&amp;"); break;
    case '<': om_out_str(o, "&lt;"); break;
    case '>': om_out_str(o, "&gt;"); break;
    case '"': om_out_str(o, "&quot;"); break;
    case '\'': om_out_str(o, "&#39;"); break;
    default:
        if (c < 0x20 || c == 0x7f)
            om_out_str(o, c == '\n' || c == '\t' ? " " : "?");
        else
            om_out_bytes(o, &c, 1);
    }
}

void om_out_html(om_out *o, const char *s)
{
    for (; *s; s++)
        html_char(o, (unsigned char)*s);
}

void om_out_xml(om_out *o, const char *s)
{
    /* same set as HTML: XML 1.0 forbids the control characters html_char replaces */
    om_out_html(o, s);
}

void om_out_md(om_out *o, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '|': case '`': case '*': case '_': case '[': case ']': case '\\': case '#':
        case '~':
            om_out_str(o, "\\");
            om_out_bytes(o, &c, 1);
            break;
        default:
            html_char(o, c);
        }
    }
}

void om_out_csv(om_out *o, const char *s)
{
    om_out_str(o, "\"");
    if (*s == '=' || *s == '+' || *s == '-' || *s == '@' || *s == '\t' || *s == '\r')
        om_out_str(o, "'");
    for (; *s; s++) {
        if (*s == '"')
            om_out_str(o, "\"\"");
        else
            om_out_bytes(o, s, 1);
    }
    om_out_str(o, "\"");
}

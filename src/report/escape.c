/*
 * report/escape.c - format-specific escaping of model strings (see escape.h).
 */
#include "escape.h"

#include "core/err.h"

/*
 * Bytes that are not UTF-8 (a name from a model may hold any bytes) make an XML report
 * not well-formed, and a CSV or Markdown one undecodable: what is not a valid UTF-8
 * sequence, a C1 control or U+FFFE/U+FFFF, becomes '?'. Returns the bytes consumed at p (>= 0x80).
 */
static size_t utf8_or_mark(om_out *o, const unsigned char *p)
{
    size_t n = om_term_seq(p);
    /* U+FFFE and U+FFFF are valid UTF-8 but not XML 1.0 characters */
    if (n == 3 && p[0] == 0xEF && p[1] == 0xBF && p[2] >= 0xBE) {
        om_out_str(o, "?");
        return n;
    }
    if (n) {
        om_out_bytes(o, p, n);
        return n;
    }
    om_out_str(o, "?");
    return 1;
}

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
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        if (*p >= 0x80)
            p += utf8_or_mark(o, p);
        else
            html_char(o, *p++);
    }
}

void om_out_xml(om_out *o, const char *s)
{
    /* same set as HTML: XML 1.0 forbids the control characters html_char replaces */
    om_out_html(o, s);
}

void om_out_md(om_out *o, const char *s)
{
    unsigned char prev = 0;
    while (*s) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x80) {
            s += utf8_or_mark(o, (const unsigned char *)s);
            prev = 0;
            continue;
        }
        s++;
        /* "](" escaped on both sides: no renderer, however lax about the escaped ']', can
         * read a link destination into it */
        if (c == '(' && prev == ']') {
            om_out_str(o, "\\(");
            prev = c;
            continue;
        }
        prev = c;
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
    while (*s) {
        if ((unsigned char)*s >= 0x80) {
            s += utf8_or_mark(o, (const unsigned char *)s);
            continue;
        }
        if (*s == '"')
            om_out_str(o, "\"\"");
        else
            om_out_bytes(o, s, 1);
        s++;
    }
    om_out_str(o, "\"");
}

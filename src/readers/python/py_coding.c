/*
 * readers/python/py_coding.c - the source encoding of a Python file (PEP 263), as CPython's
 * tokenizer finds it, and the text in UTF-8 (see py_coding.h).
 *
 * CPython reads a coding declaration on line 1, or on line 2 when line 1 is blank or a
 * comment: a comment matching `^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)`. The name is
 * normalized as its get_normal_name() and codecs.lookup() do (case, '-', '_' and ' ' alike;
 * "utf-8-*" and "latin-1-*" suffixes). A BOM says UTF-8, and a declaration that says
 * otherwise is an error. What opmap reads: UTF-8 and ASCII as they are, Latin-1 and
 * Windows-1252 (cp1252) transcoded; any other codec is refused, naming it.
 */
#include "py_coding.h"

#include <stdio.h>
#include <string.h>

#include "core/err.h"

/* Windows-1252's 0x80..0x9F as Unicode code points; 0 where Python's codec has none. */
static const uint16_t cp1252_hi[32] = {
    0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
    0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
    0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
};

static const char *const utf8_names[] = { "utf_8", "utf8", "u8", "utf", "cp65001",
                                          "utf8_ucs2", "utf8_ucs4", NULL };
static const char *const ascii_names[] = { "ascii", "us_ascii", "646", "ansi_x3.4_1968",
                                           "ansi_x3_4_1968", "cp367", "csascii", "ibm367",
                                           "iso646_us", "iso_646.irv_1991", "iso_ir_6", "us",
                                           NULL };
static const char *const latin1_names[] = { "latin_1", "iso_8859_1", "iso8859_1", "8859",
                                            "cp819", "csisolatin1", "ibm819", "iso8859",
                                            "iso_8859_1_1987", "iso_ir_100", "l1", "latin",
                                            "latin1", "iso_latin_1", NULL };
static const char *const cp1252_names[] = { "cp1252", "windows_1252", "1252", NULL };

static int is_name_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '_' || c == '.';
}

static int in_list(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(name, *list) == 0)
            return 1;
    return 0;
}

/* The codec a declared name is: PY_CODING_*, or PY_CODING_OTHER. */
static int codec_of(const unsigned char *s, size_t n)
{
    char name[64];
    size_t i;
    if (n >= sizeof(name))
        return PY_CODING_OTHER;
    for (i = 0; i < n; i++) {
        char c = (char)s[i];
        name[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c == '-' || c == ' ' ? '_' : c;
    }
    name[n] = '\0';
    /* get_normal_name: "utf-8-..." and "latin-1-...", "iso-8859-1-...", "iso-latin-1-..." */
    if (strncmp(name, "utf_8_", 6) == 0)
        return PY_CODING_UTF8;
    if (strncmp(name, "latin_1_", 8) == 0 || strncmp(name, "iso_8859_1_", 11) == 0 ||
        strncmp(name, "iso_latin_1_", 12) == 0)
        return PY_CODING_LATIN1;
    if (in_list(name, utf8_names))
        return PY_CODING_UTF8;
    if (in_list(name, ascii_names))
        return PY_CODING_ASCII;
    if (in_list(name, latin1_names))
        return PY_CODING_LATIN1;
    if (in_list(name, cp1252_names))
        return PY_CODING_CP1252;
    return PY_CODING_OTHER;
}

/* The line at text[*pos, end): moves *pos past its line break. */
static size_t line_end(const unsigned char *t, size_t len, size_t *pos)
{
    size_t e = *pos;
    while (e < len && t[e] != '\n' && t[e] != '\r')
        e++;
    *pos = e < len ? e + (t[e] == '\r' && e + 1 < len && t[e + 1] == '\n' ? 2 : 1) : e;
    return e;
}

/* A declaration on the line t[a, b): 1 with the name at *ns, *nn; 0 when none. *comment
 * says whether the line is blank or only a comment. */
static int declaration(const unsigned char *t, size_t a, size_t b, size_t *ns, size_t *nn,
                       int *comment)
{
    size_t i = a, k;
    while (i < b && (t[i] == ' ' || t[i] == '\t' || t[i] == '\f'))
        i++;
    *comment = i == b || t[i] == '#';
    if (i == b || t[i] != '#')
        return 0;
    for (k = i + 1; k + 6 < b; k++) {
        size_t j;
        if (memcmp(t + k, "coding", 6) != 0 || (t[k + 6] != ':' && t[k + 6] != '='))
            continue;
        for (j = k + 7; j < b && (t[j] == ' ' || t[j] == '\t'); j++)
            ;
        *ns = j;
        while (j < b && is_name_char(t[j]))
            j++;
        *nn = j - *ns;
        if (*nn)
            return 1;
    }
    return 0;
}

int py_coding(const unsigned char *text, size_t len, int bom, int *codec, uint32_t *line,
              char *name, size_t name_size)
{
    size_t pos = 0, a, b, ns = 0, nn = 0;
    int comment, found = 0;
    *codec = bom ? PY_CODING_UTF8 : PY_CODING_NONE;
    *line = 0;
    if (name_size)
        name[0] = '\0';
    a = pos;
    b = line_end(text, len, &pos);
    if (declaration(text, a, b, &ns, &nn, &comment)) {
        found = 1;
        *line = 1;
    } else if (comment && pos < len) {
        a = pos;
        b = line_end(text, len, &pos);
        if (declaration(text, a, b, &ns, &nn, &comment)) {
            found = 1;
            *line = 2;
        }
    }
    if (!found)
        return 0;
    if (name_size)
        snprintf(name, name_size, "%.*s", (int)(nn < 60 ? nn : 60), (const char *)text + ns);
    *codec = codec_of(text + ns, nn);
    if (bom && *codec != PY_CODING_UTF8)
        return -1; /* CPython: "encoding problem: X with BOM" */
    return 1;
}

/* The UTF-8 of code point u into out; its length. */
static size_t put_utf8(unsigned char *out, uint32_t u)
{
    if (u < 0x80) {
        out[0] = (unsigned char)u;
        return 1;
    }
    if (u < 0x800) {
        out[0] = (unsigned char)(0xC0 | (u >> 6));
        out[1] = (unsigned char)(0x80 | (u & 0x3F));
        return 2;
    }
    out[0] = (unsigned char)(0xE0 | (u >> 12));
    out[1] = (unsigned char)(0x80 | ((u >> 6) & 0x3F));
    out[2] = (unsigned char)(0x80 | (u & 0x3F));
    return 3;
}

int py_to_utf8(const char *name, const unsigned char *text, size_t len, int codec, om_mem *mem,
               unsigned char **out, size_t *out_len, size_t *cap, opmap_error *err)
{
    size_t i, n = 0, need = 0;
    unsigned char *o;
    for (i = 0; i < len; i++) {
        unsigned char c = text[i];
        uint32_t u = c;
        if (c >= 0x80 && codec == PY_CODING_CP1252 && c < 0xA0 && !(u = cp1252_hi[c - 0x80]))
            return om_fail_at(err, OPMAP_EFORMAT, name, i,
                              "byte 0x%02x has no character in cp1252 (Python's codec "
                              "refuses it)", c);
        need += u < 0x80 ? 1 : u < 0x800 ? 2 : 3;
    }
    if (!(o = om_alloc(mem, need + 1)))
        return om_fail_mem(err, mem, name);
    for (i = 0; i < len; i++) {
        unsigned char c = text[i];
        uint32_t u = c >= 0x80 && c < 0xA0 && codec == PY_CODING_CP1252 ? cp1252_hi[c - 0x80] : c;
        n += put_utf8(o + n, u);
    }
    o[n] = '\0';
    *out = o;
    *out_len = n;
    *cap = need + 1;
    return OPMAP_OK;
}

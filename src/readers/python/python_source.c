/*
 * readers/python/python_source.c - py_scan_source: UTF-8 checked, a BOM stepped over, the
 * text tokenized (py_lexer.c), the sites found (py_imports.c, py_sites.c).
 */
#include "python_source.h"

#include <string.h>

#include "core/err.h"
#include "core/text.h"
#include "py_coding.h"
#include "py_finder.h"

/* The first byte of malformed UTF-8, or len when there is none. */
static size_t utf8_bad(const unsigned char *p, size_t len)
{
    size_t i = 0, n;
    while (i < len && (n = om_utf8_len(p + i, len - i)))
        i += n;
    return i;
}

static int bad_utf8(const char *name, const unsigned char *text, size_t bad, opmap_error *err)
{
    py_lex_in in;
    py_cursor c;
    size_t i;
    memset(&in, 0, sizeof(in));
    in.text = text;
    in.len = bad;
    memset(&c, 0, sizeof(c));
    c.in = &in;
    c.line = 1;
    for (i = 0; i < bad;) {
        size_t nl = py_newline_at(&in, i);
        if (nl) {
            i += nl;
            c.line++;
            c.line_start = i;
        } else {
            i++;
        }
    }
    return om_fail_line(err, OPMAP_EFORMAT, name, c.line, py_col(&c, bad),
                        "invalid UTF-8 (byte 0x%02x)", text[bad]);
}

/*
 * The text as CPython decodes it (PEP 263): UTF-8 or ASCII as it is, Latin-1 or cp1252
 * into UTF-8 (*own, *own_cap: a buffer to free), anything else refused naming the codec.
 */
static int decode(const char *name, const unsigned char **text, size_t *len, int bom,
                  om_mem *mem, unsigned char **own, size_t *own_cap, opmap_error *err)
{
    int codec, k;
    uint32_t line;
    char cname[64];
    size_t i, n;
    k = py_coding(*text, *len, bom, &codec, &line, cname, sizeof(cname));
    if (k < 0)
        return om_fail_line(err, OPMAP_EFORMAT, name, line, 1,
                            "a UTF-8 BOM and a coding declaration of '%s' (CPython refuses it)",
                            cname);
    if (codec == PY_CODING_OTHER)
        return om_fail_line(err, OPMAP_EUNSUPPORTED, name, line, 1,
                            "coding '%s' (PEP 263) is not read: opmap reads UTF-8, ASCII, "
                            "Latin-1 and cp1252", cname);
    if (codec == PY_CODING_ASCII) {
        for (i = 0; i < *len && (*text)[i] < 0x80; i++)
            ;
        if (i < *len)
            return om_fail_at(err, OPMAP_EFORMAT, name, i,
                              "byte 0x%02x in a file declared ASCII (line %u)", (*text)[i],
                              (unsigned)line);
    }
    if (codec != PY_CODING_LATIN1 && codec != PY_CODING_CP1252)
        return OPMAP_OK;
    if ((k = py_to_utf8(name, *text, *len, codec, mem, own, &n, own_cap, err)))
        return k;
    *text = *own;
    *len = n;
    return OPMAP_OK;
}

int py_scan_source(const char *name, const unsigned char *text, size_t len,
                   const opmap_limits *lim, om_arena *arena, om_vec *sites, opmap_error *err)
{
    opmap_error local;
    py_lex_in in;
    py_finder f;
    om_vec toks;
    size_t bad, before, own_cap = 0;
    unsigned char *own = NULL;
    int rc, bom = 0;
    if (!err)
        err = &local;
    om_err_clear(err);
    if (!name)
        name = "<memory>";
    if (!lim || !arena || !sites || (!text && len))
        return om_fail(err, OPMAP_EINVAL, name, "py_scan_source: missing argument");
    if (len >= 3 && text[0] == 0xEF && text[1] == 0xBB && text[2] == 0xBF) {
        text += 3;
        len -= 3;
        bom = 1;
    }
    if (len > lim->max_file_bytes)
        return om_fail(err, OPMAP_ELIMIT, name, "file over max_file_bytes (%llu)",
                       (unsigned long long)lim->max_file_bytes);
    if ((rc = decode(name, &text, &len, bom, arena->mem, &own, &own_cap, err)))
        return rc;
    if ((bad = utf8_bad(text, len)) < len) {
        rc = bad_utf8(name, text, bad, err);
        if (own)
            om_dealloc(arena->mem, own, own_cap);
        return rc;
    }
    memset(&in, 0, sizeof(in));
    in.name = name;
    in.text = text;
    in.len = len;
    in.lim = lim;
    in.mem = arena->mem;
    om_vec_init(&toks, sizeof(py_token));
    before = sites->len;
    if ((rc = py_lex(&in, &toks, err)) == OPMAP_OK) {
        memset(&f, 0, sizeof(f));
        f.text = text;
        f.toks = toks.data;
        f.ntok = toks.len;
        f.lim = lim;
        f.arena = arena;
        f.sites = sites;
        f.err = err;
        f.aliases.mem = arena->mem;
        if (!(f.file = om_arena_strdup(arena, name)))
            rc = om_fail_mem(err, arena->mem, name);
        else
            rc = py_find_sites(&f);
        py_alias_free(&f.aliases);
    }
    om_vec_free(&toks, arena->mem);
    if (own)
        om_dealloc(arena->mem, own, own_cap);
    if (rc != OPMAP_OK) /* a failed file adds nothing: no half-built site for a caller */
        sites->len = before;
    return rc;
}

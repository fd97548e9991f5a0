/*
 * readers/python/python_source.h - the sites of one Python source file: imports, dotted
 * names, calls, method calls and string literals, each with file:line:column, names
 * resolved through the file's imports. What a site means (a CUDA-ism or not) is the rules'
 * business; this only finds them. README.md says what is and is not followed.
 */
#ifndef OM_PY_PYTHON_SOURCE_H
#define OM_PY_PYTHON_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include <opmap/context.h>
#include <opmap/error.h>

#include "core/mem.h"

typedef enum py_site_kind {
    PY_SITE_IMPORT,      /* one imported name: `import a.b as c`, `from a import b` */
    PY_SITE_NAME,        /* a dotted name not called: `torch.backends.cudnn.benchmark` */
    PY_SITE_CALL,        /* a name called: `torch.cuda.is_available(`, `print(` */
    PY_SITE_METHOD_CALL, /* an attribute of an unknown receiver called: `model.cuda(` */
    PY_SITE_STRING_ARG,  /* a string literal inside a call's arguments */
    PY_SITE_STRING       /* any other string literal (`device = "cuda"`, docstrings) */
} py_site_kind;

typedef struct py_site {
    py_site_kind kind;
    /* IMPORT: the full imported name ("torch.cuda.amp", "apex.amp", ".utils.x", "a.*").
     * NAME, CALL: the chain resolved through the imports ("torch.cuda.is_available" after
     *   `import torch as T` for T.cuda.is_available), or as written when its head was not
     *   imported ("nn.Module", "print").
     * METHOD_CALL: "." and the attribute (".cuda"); also NAME for an attribute of an
     *   expression (`f(x).shape`: ".shape").
     * STRING_ARG: the call's name as CALL or METHOD_CALL has it ("torch.device", ".to"),
     *   "" for a call of an expression (`f()("cuda")`). STRING: NULL. */
    const char *name;
    /* the source form, normalized: "T.cuda.is_available", "model.cuda", ".cuda"; IMPORT:
     * the module as written ("torch.cuda", "..m"); STRING*: the literal with prefix and
     * quotes, as written */
    const char *text;
    /* IMPORT: the name bound (`as` name or the imported one; `import a.b` binds "a"), NULL
     * for `*`. STRING_ARG: the keyword (`device=`), NULL when positional. */
    const char *bound;
    /* STRING*: the value: escapes decoded (not for raw strings), an f-string's body as
     * written, braces and all; NUL-terminated, value_len bytes (a NUL may be inside) */
    const char *value;
    uint32_t value_len;
    int32_t arg_index;   /* STRING_ARG: the argument (0-based) the literal is in */
    uint8_t resolved;    /* NAME, CALL, STRING_ARG: the head was bound by an import */
    uint8_t level;       /* IMPORT: the dots of a relative import (`from .. import x`: 2) */
    uint8_t star;        /* IMPORT: `from a import *` */
    uint8_t alone;       /* STRING*: the literal is the whole argument (or expression) */
    uint8_t nested;      /* STRING_ARG: inside a list, tuple or dict of the argument */
    uint8_t str_flags;   /* STRING*: PY_STR_* of py_lexer.h (raw, bytes, f, triple) */
    uint32_t stmt_line, stmt_col; /* IMPORT: where its statement starts (`from`/`import`) */
    uint8_t in_loop;     /* in the body of a for/while loop (indentation or after the header's
                            ':'), or inside a comprehension or generator expression */
    uint8_t guarded;     /* IMPORT: in the body of a `try:` one of whose `except` clauses
                            catches ImportError (ModuleNotFoundError, Exception,
                            BaseException, or a bare except): the code has a fallback */
    const char *file;    /* the `name` given to py_scan_source */
    uint32_t line, col;  /* 1-based; a column counts bytes from the line's start (after a
                            BOM on line 1): IMPORT at the imported name, chains at their
                            first name (METHOD_CALL of an expression: its '.'), strings at
                            their prefix or quote */
} py_site;

/*
 * Scans `text` (a Python 3 source file named `name`: UTF-8 with or without a BOM, or the
 * ASCII, Latin-1 or cp1252 its PEP 263 declaration names) and
 * appends its sites to `sites` (a vector of py_site, om_vec_init(sites, sizeof(py_site)),
 * grown on arena->mem), in source order but imports first within a statement. Every
 * string a site points to lives in `arena`; the scan's own tokens and tables are freed
 * before it returns.
 *
 * Limits (lim: a context's limits, every field set): the text is at most max_file_bytes
 * (and 4 GiB); brackets nest at most 200 deep (CPython's own limit), f-string fields
 * inside f-strings max_depth; a name and a dotted chain are at most max_string_bytes, a
 * string literal as long as the file (a site keeps max_string_bytes of it); all memory,
 * tokens and sites included, is drawn from arena->mem (max_heap_bytes when the caller made
 * it so). Exceeding one is OPMAP_ELIMIT, a message naming the limit.
 *
 * @return OPMAP_OK; OPMAP_EFORMAT (invalid UTF-8, a string or bracket not closed, a
 *         character Python does not allow, a byte its declared coding lacks) with err's
 *         line and column or offset; OPMAP_EUNSUPPORTED (a coding other than UTF-8, ASCII,
 *         Latin-1, cp1252); OPMAP_ELIMIT; OPMAP_ENOMEM. On failure `sites` is as it was: a
 *         file that fails adds no site.
 */
int py_scan_source(const char *name, const unsigned char *text, size_t len,
                   const opmap_limits *lim, om_arena *arena, om_vec *sites, opmap_error *err);

#endif /* OM_PY_PYTHON_SOURCE_H */

/*
 * core/json.c - the bounded JSON reader (see json.h).
 *
 * One loop over the text with an explicit stack of open containers. Finished values wait
 * on one pending vector; when a container closes, its children are moved from the end of
 * that vector into one arena array, so every value is copied once and no container needs
 * its size in advance.
 */
#include "core/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "core/text.h"

typedef struct frame {
    oj_value v;          /* the open container */
    size_t first;        /* its first child in the pending vector */
    const char *key;     /* object: the key of the member being read */
    int want_key;        /* object: a key (or '}') comes next */
} frame;

typedef struct parser {
    const oj_src *src;
    const char *t;
    size_t len, pos;
    om_vec pending;      /* oj_value */
    frame *stack;
    uint32_t depth;
} parser;

static int fail(parser *p, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(parser *p, size_t at, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return om_fail_at(p->src->err, OPMAP_EFORMAT, p->src->source, at, "%s", msg);
}

static int oom(parser *p)
{
    return om_fail_mem(p->src->err, p->src->mem, p->src->source);
}

static void skip_ws(parser *p)
{
    while (p->pos < p->len && (p->t[p->pos] == ' ' || p->t[p->pos] == '\t' ||
                               p->t[p->pos] == '\n' || p->t[p->pos] == '\r'))
        p->pos++;
}


static int hex4(const char *s, uint32_t *out)
{
    uint32_t v = 0;
    int i;
    for (i = 0; i < 4; i++) {
        char ch = s[i];
        v <<= 4;
        if (ch >= '0' && ch <= '9')
            v |= (uint32_t)(ch - '0');
        else if (ch >= 'a' && ch <= 'f')
            v |= (uint32_t)(ch - 'a' + 10);
        else if (ch >= 'A' && ch <= 'F')
            v |= (uint32_t)(ch - 'A' + 10);
        else
            return 0;
    }
    *out = v;
    return 1;
}

static size_t put_utf8(char *o, uint32_t c)
{
    if (c < 0x80) {
        o[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        o[0] = (char)(0xC0 | c >> 6);
        o[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        o[0] = (char)(0xE0 | c >> 12);
        o[1] = (char)(0x80 | (c >> 6 & 0x3F));
        o[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | c >> 18);
    o[1] = (char)(0x80 | (c >> 12 & 0x3F));
    o[2] = (char)(0x80 | (c >> 6 & 0x3F));
    o[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* One escape at p->t[i] (after the backslash); appends to o, returns the bytes read. */
static size_t escape(parser *p, size_t i, char *o, size_t *olen, int *rc)
{
    const char *t = p->t;
    uint32_t c, lo;
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *k = i < p->len && t[i] ? strchr(from, t[i]) : NULL;
    if (k) {
        o[(*olen)++] = to[k - from];
        return 1;
    }
    if (i >= p->len || t[i] != 'u' || p->len - i < 5 || !hex4(t + i + 1, &c)) {
        *rc = fail(p, i - 1, "JSON: malformed escape in a string%s", "");
        return 0;
    }
    if (c >= 0xDC00 && c <= 0xDFFF) {
        *rc = fail(p, i - 1, "JSON: a lone low surrogate (\\u%.4s) in a string", t + i + 1);
        return 0;
    }
    if (c >= 0xD800 && c <= 0xDBFF) {
        if (p->len - i < 11 || t[i + 5] != '\\' || t[i + 6] != 'u' || !hex4(t + i + 7, &lo) ||
            lo < 0xDC00 || lo > 0xDFFF) {
            *rc = fail(p, i - 1, "JSON: a high surrogate (\\u%.4s) without its pair", t + i + 1);
            return 0;
        }
        *olen += put_utf8(o + *olen, 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00));
        return 11;
    }
    if (c == 0) {
        *rc = fail(p, i - 1, "JSON: a NUL (\\u0000) in a string%s", "");
        return 0;
    }
    *olen += put_utf8(o + *olen, c);
    return 5;
}

/* A string starting at the quote at p->pos: decoded into the arena. */
static int string(parser *p, const char **out, size_t *out_len)
{
    size_t start = p->pos, i = p->pos + 1, olen = 0;
    char *o;
    int rc = OPMAP_OK;
    /* its end first: the raw length bounds the decoded one */
    while (i < p->len && p->t[i] != '"')
        i += p->t[i] == '\\' ? 2 : 1;
    if (i >= p->len)
        return fail(p, start, "JSON: a string that never ends%s", "");
    if (i - start - 1 > p->src->max_string)
        return om_fail_at(p->src->err, OPMAP_ELIMIT, p->src->source, start,
                          "JSON string of %zu bytes, over max_string_bytes (%" PRIu64 ")",
                          i - start - 1, p->src->max_string);
    if (!(o = om_arena_alloc(p->src->arena, i - start)))
        return oom(p);
    for (i = start + 1; p->t[i] != '"';) {
        unsigned char ch = (unsigned char)p->t[i];
        size_t k;
        if (ch == '\\') {
            if (!(k = escape(p, i + 1, o, &olen, &rc)))
                return rc;
            i += 1 + k;
        } else if (ch < 0x20) {
            return fail(p, i, "JSON: a control character in a string%s", "");
        } else if (!(k = om_utf8_len((const unsigned char *)p->t + i, p->len - i))) {
            return fail(p, i, "JSON: malformed UTF-8 in a string%s", "");
        } else {
            memcpy(o + olen, p->t + i, k);
            olen += k;
            i += k;
        }
    }
    o[olen] = 0;
    p->pos = i + 1;
    *out = o;
    *out_len = olen;
    return OPMAP_OK;
}

static int digit(char c)
{
    return c >= '0' && c <= '9';
}

/* A number at p->pos, as json.loads reads one; the double within a few ulps, locale-free. */
static int number(parser *p, oj_value *v)
{
    const char *t = p->t;
    size_t i = p->pos, start = p->pos;
    int neg = 0, overflow = 0, frac = 0;
    uint64_t mant = 0, ival = 0;
    int64_t dexp = 0, e = 0;
    int mdigits = 0, eneg = 0;
    if (t[i] == '-')
        neg = 1, i++;
    if (i >= p->len || !digit(t[i]))
        return fail(p, start, "JSON: malformed number%s", "");
    if (t[i] == '0' && i + 1 < p->len && digit(t[i + 1]))
        return fail(p, start, "JSON: a number with a leading zero%s", "");
    for (; i < p->len && digit(t[i]); i++) {
        unsigned d = (unsigned)(t[i] - '0');
        if (ival > (UINT64_MAX - d) / 10)
            overflow = 1;
        else
            ival = ival * 10 + d;
        if (mdigits < 19)
            mant = mant * 10 + d, mdigits += mant != 0;
        else
            dexp++;
    }
    if (i < p->len && t[i] == '.') {
        frac = 1;
        if (++i >= p->len || !digit(t[i]))
            return fail(p, start, "JSON: malformed number%s", "");
        for (; i < p->len && digit(t[i]); i++)
            if (mdigits < 19) {
                mant = mant * 10 + (unsigned)(t[i] - '0'), mdigits += mant != 0;
                dexp--;
            }
    }
    if (i < p->len && (t[i] == 'e' || t[i] == 'E')) {
        frac = 1;
        i++;
        if (i < p->len && (t[i] == '+' || t[i] == '-'))
            eneg = t[i++] == '-';
        if (i >= p->len || !digit(t[i]))
            return fail(p, start, "JSON: malformed number%s", "");
        for (; i < p->len && digit(t[i]); i++)
            if (e < 100000)
                e = e * 10 + (t[i] - '0');
    }
    dexp += eneg ? -e : e;
    v->type = OJ_NUMBER;
    v->d = (double)mant;
    if (mant && dexp)
        v->d *= pow(10.0, (double)(dexp < -400 ? -400 : dexp > 400 ? 400 : dexp));
    if (neg)
        v->d = -v->d;
    if (!frac && !overflow && ival <= (uint64_t)INT64_MAX + (uint64_t)neg) {
        v->is_int = 1;
        v->i = neg ? (int64_t)(0 - ival) : (int64_t)ival;
        v->d = (double)v->i;
    }
    p->pos = i;
    return OPMAP_OK;
}

static int word(parser *p, const char *w)
{
    size_t n = strlen(w);
    if (p->len - p->pos >= n && memcmp(p->t + p->pos, w, n) == 0) {
        p->pos += n;
        return 1;
    }
    return 0;
}

/* A scalar at p->pos into v. */
static int scalar(parser *p, oj_value *v)
{
    char c = p->t[p->pos];
    if (c == '"') {
        v->type = OJ_STRING;
        return string(p, &v->s, &v->len);
    }
    if (word(p, "true"))
        v->type = OJ_TRUE;
    else if (word(p, "false"))
        v->type = OJ_FALSE;
    else if (word(p, "null"))
        v->type = OJ_NULL;
    else if (word(p, "NaN"))
        v->type = OJ_NUMBER, v->d = NAN;
    else if (word(p, "Infinity"))
        v->type = OJ_NUMBER, v->d = INFINITY;
    else if (word(p, "-Infinity"))
        v->type = OJ_NUMBER, v->d = -INFINITY;
    else if (c == '-' || digit(c))
        return number(p, v);
    else
        return fail(p, p->pos, "JSON: unexpected %s", c == '}' || c == ']' ? "close bracket"
                                                      : "character");
    return OPMAP_OK;
}

/* A finished value goes to the open container (or is the result). */
static int finish(parser *p, oj_value *v, oj_value **out)
{
    oj_value *slot;
    if (!p->depth) {
        if (!(*out = om_arena_alloc(p->src->arena, sizeof(**out))))
            return oom(p);
        **out = *v;
        return OPMAP_OK;
    }
    v->key = p->stack[p->depth - 1].key;
    p->stack[p->depth - 1].key = NULL;
    if (!(slot = om_vec_push(&p->pending, p->src->mem)))
        return oom(p);
    *slot = *v;
    return OPMAP_OK;
}

static int close_container(parser *p, oj_value **out)
{
    frame *f = &p->stack[--p->depth];
    size_t n = p->pending.len - f->first;
    oj_value v = f->v;
    if (n > UINT32_MAX)
        return fail(p, p->pos, "JSON: a container with more than 2^32 members%s", "");
    v.n = (uint32_t)n;
    if (n && !(v.kids = om_arena_array(p->src->arena, n, sizeof(oj_value))))
        return oom(p);
    if (n)
        memcpy(v.kids, (oj_value *)p->pending.data + f->first, n * sizeof(oj_value));
    p->pending.len = f->first;
    p->pos++;
    return finish(p, &v, out);
}

static int open_container(parser *p, int type)
{
    frame *f;
    if (p->depth >= p->src->max_depth)
        return om_fail_at(p->src->err, OPMAP_ELIMIT, p->src->source, p->pos,
                          "JSON nested deeper than %" PRIu32 " levels (16 x max_depth + 16)",
                          p->src->max_depth);
    f = &p->stack[p->depth++];
    memset(f, 0, sizeof(*f));
    f->v.type = (uint8_t)type;
    f->v.offset = p->pos;
    f->first = p->pending.len;
    f->want_key = type == OJ_OBJECT;
    p->pos++;
    return OPMAP_OK;
}

/* After a value inside a container: ',' or its close. Returns 1 when it closed. */
static int after_value(parser *p, frame *f, oj_value **out, int *rc)
{
    char close = f->v.type == OJ_OBJECT ? '}' : ']';
    skip_ws(p);
    if (p->pos < p->len && p->t[p->pos] == ',') {
        p->pos++;
        f->want_key = f->v.type == OJ_OBJECT;
        skip_ws(p);
        if (p->pos < p->len && p->t[p->pos] == close)
            *rc = fail(p, p->pos, "JSON: a trailing comma%s", "");
        return 0;
    }
    if (p->pos < p->len && p->t[p->pos] == close) {
        *rc = close_container(p, out);
        return 1;
    }
    if (p->pos >= p->len)
        *rc = fail(p, p->pos, "JSON: the text ends inside a container%s", "");
    else
        *rc = fail(p, p->pos, "JSON: expected ',' or '%s'", close == '}' ? "}" : "]");
    return 0;
}

static int object_key(parser *p, frame *f)
{
    size_t len;
    int rc;
    if (p->pos >= p->len || p->t[p->pos] != '"')
        return fail(p, p->pos, "JSON: expected a key (a string)%s", "");
    if ((rc = string(p, &f->key, &len)))
        return rc;
    f->want_key = 0;
    skip_ws(p);
    if (p->pos >= p->len || p->t[p->pos] != ':')
        return fail(p, p->pos, "JSON: expected ':' after a key%s", "");
    p->pos++;
    return OPMAP_OK;
}

static int run(parser *p, oj_value **out)
{
    int rc = OPMAP_OK;
    *out = NULL;
    for (;;) {
        frame *f = p->depth ? &p->stack[p->depth - 1] : NULL;
        oj_value v;
        skip_ws(p);
        if (p->pos >= p->len)
            return fail(p, p->pos, "JSON: the text ends %s", p->depth ? "inside a container"
                                                                      : "before any value");
        /* an empty container, or a key */
        if (f && f->want_key && p->t[p->pos] == '}' && p->pending.len == f->first) {
            rc = close_container(p, out);
        } else if (f && !f->want_key && f->v.type == OJ_ARRAY && p->t[p->pos] == ']' &&
                   p->pending.len == f->first) {
            rc = close_container(p, out);
        } else if (f && f->want_key) {
            if ((rc = object_key(p, f)))
                return rc;
            continue;
        } else if (p->t[p->pos] == '{' || p->t[p->pos] == '[') {
            if ((rc = open_container(p, p->t[p->pos] == '{' ? OJ_OBJECT : OJ_ARRAY)))
                return rc;
            continue;
        } else {
            memset(&v, 0, sizeof(v));
            v.offset = p->pos;
            if ((rc = scalar(p, &v)) || (rc = finish(p, &v, out)))
                return rc;
        }
        if (rc)
            return rc;
        /* a value just ended: close containers as long as their ends follow */
        while (p->depth) {
            if (!after_value(p, &p->stack[p->depth - 1], out, &rc))
                break;
            if (rc)
                return rc;
        }
        if (rc)
            return rc;
        if (!p->depth)
            return OPMAP_OK;
    }
}

int oj_parse(const oj_src *src, const char *text, size_t len, oj_value **out)
{
    parser p;
    int rc;
    memset(&p, 0, sizeof(p));
    p.src = src;
    p.t = text;
    p.len = len;
    om_vec_init(&p.pending, sizeof(oj_value));
    if (!(p.stack = om_calloc(src->mem, (size_t)src->max_depth + 1, sizeof(frame))))
        return oom(&p);
    rc = run(&p, out);
    if (rc == OPMAP_OK) {
        skip_ws(&p);
        if (p.pos < p.len)
            rc = fail(&p, p.pos, "JSON: text after the value%s", "");
    }
    om_dealloc(src->mem, p.stack, ((size_t)src->max_depth + 1) * sizeof(frame));
    om_vec_free(&p.pending, src->mem);
    return rc;
}

const oj_value *oj_get(const oj_value *v, const char *key)
{
    uint32_t i;
    if (!v || v->type != OJ_OBJECT)
        return NULL;
    for (i = v->n; i-- > 0;)
        if (strcmp(v->kids[i].key, key) == 0)
            return &v->kids[i];
    return NULL;
}

const oj_value *oj_obj(const oj_value *v, const char *key)
{
    const oj_value *m = oj_get(v, key);
    return m && m->type == OJ_OBJECT ? m : NULL;
}

const oj_value *oj_arr(const oj_value *v, const char *key)
{
    const oj_value *m = oj_get(v, key);
    return m && m->type == OJ_ARRAY ? m : NULL;
}

const char *oj_str(const oj_value *v, const char *key)
{
    const oj_value *m = oj_get(v, key);
    return m && m->type == OJ_STRING ? m->s : NULL;
}

/*
 * merge/read_fields.c - typed members of a report's JSON objects, each checked, each
 * failure naming the field and its byte offset (see merge_internal.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/err.h"
#include "merge_internal.h"

int rr_fail(rr *r, const oj_value *at, const char *field, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return om_fail_at(r->err, OPMAP_EFORMAT, r->source, at ? at->offset : 0,
                      "%s%s%s: %s", r->where, r->where[0] && field ? "." : "", field ? field : "", msg);
}

void rr_at(rr *r, const char *base, size_t i)
{
    if (i == SIZE_MAX)
        snprintf(r->where, sizeof(r->where), "%s", base);
    else
        snprintf(r->where, sizeof(r->where), "%s[%zu]", base, i);
}

/* Member `key` of o, or the error that it is missing. */
static int member(rr *r, const oj_value *o, const char *key, const oj_value **out)
{
    if (!o || o->type != OJ_OBJECT)
        return rr_fail(r, o, NULL, "not an object");
    if (!(*out = oj_get(o, key)))
        return rr_fail(r, o, key, "missing");
    return OPMAP_OK;
}

static int typed(rr *r, const oj_value *o, const char *key, int type, const char *what,
                 const oj_value **out)
{
    int rc = member(r, o, key, out);
    if (rc == OPMAP_OK && (*out)->type != type)
        return rr_fail(r, *out, key, "not %s", what);
    return rc;
}

int rr_str(rr *r, const oj_value *o, const char *key, om_arena *A, const char **out)
{
    const oj_value *v;
    int rc = typed(r, o, key, OJ_STRING, "a string", &v);
    if (rc)
        return rc;
    if (!A) {
        *out = v->s;
        return OPMAP_OK;
    }
    if (!(*out = om_arena_strndup(A, v->s, v->len)))
        return om_fail_mem(r->err, A->mem, r->source);
    return OPMAP_OK;
}

int rr_int(rr *r, const oj_value *o, const char *key, int64_t *out)
{
    const oj_value *v;
    int rc = typed(r, o, key, OJ_NUMBER, "a number", &v);
    if (rc)
        return rc;
    if (!v->is_int)
        return rr_fail(r, v, key, "not an integer of 64 bits");
    *out = v->i;
    return OPMAP_OK;
}

/* The text of number v (len: the bytes left from its first one; 0 when it is not there):
 * the report's, or the piece of it that holds v (segs: a report read a value at a time,
 * offsets in the file). */
static const char *number_text(const rr *r, const oj_value *v, size_t *len)
{
    size_t i;
    *len = 0;
    if (!r->n_segs) {
        if (v->offset < r->len)
            *len = r->len - (size_t)v->offset;
        return r->text + (*len ? (size_t)v->offset : 0);
    }
    for (i = 0; i < r->n_segs; i++)
        if (v->offset >= r->segs[i].base && v->offset - r->segs[i].base < r->segs[i].len) {
            *len = r->segs[i].len - (size_t)(v->offset - r->segs[i].base);
            return r->segs[i].text + (v->offset - r->segs[i].base);
        }
    return "";
}

/* Counts are unsigned 64-bit (weight bytes past 2^63 exist in hostile models): read from the
 * text, digit by digit, not through int64 or a double. */
int rr_uint(rr *r, const oj_value *o, const char *key, uint64_t *out)
{
    const oj_value *v;
    const char *t;
    uint64_t n = 0;
    size_t p, len;
    int rc = typed(r, o, key, OJ_NUMBER, "a number", &v);
    if (rc)
        return rc;
    if (v->is_int && v->i < 0)
        return rr_fail(r, v, key, "negative");
    t = number_text(r, v, &len);
    for (p = 0; p < len && t[p] >= '0' && t[p] <= '9'; p++) {
        unsigned d = (unsigned)(t[p] - '0');
        if (n > (UINT64_MAX - d) / 10)
            return rr_fail(r, v, key, "over 2^64");
        n = n * 10 + d;
    }
    if (p == 0 || (p < len && (t[p] == '.' || t[p] == 'e' || t[p] == 'E')))
        return rr_fail(r, v, key, "not a whole number");
    *out = n;
    return OPMAP_OK;
}

int rr_bool(rr *r, const oj_value *o, const char *key, int *out)
{
    const oj_value *v;
    int rc = member(r, o, key, &v);
    if (rc)
        return rc;
    if (v->type != OJ_TRUE && v->type != OJ_FALSE)
        return rr_fail(r, v, key, "not true or false");
    *out = v->type == OJ_TRUE;
    return OPMAP_OK;
}

int rr_obj(rr *r, const oj_value *o, const char *key, const oj_value **out)
{
    return typed(r, o, key, OJ_OBJECT, "an object", out);
}

int rr_arr(rr *r, const oj_value *o, const char *key, const oj_value **out)
{
    return typed(r, o, key, OJ_ARRAY, "an array", out);
}

/* The writer puts thousandths of a day as "12", "12.5" or "0.125": read from the text,
 * not through a double, so every value comes back exactly. */
int rr_days(rr *r, const oj_value *o, const char *key, uint64_t *out)
{
    const oj_value *v;
    const char *t;
    uint64_t whole = 0, frac = 0;
    size_t p, len, digits = 0, decimals = 0;
    int rc = typed(r, o, key, OJ_NUMBER, "a number", &v);
    if (rc)
        return rc;
    t = number_text(r, v, &len);
    for (p = 0; p < len && t[p] >= '0' && t[p] <= '9'; p++) {
        if (whole > (UINT64_MAX / 1000 - 9) / 10)
            return rr_fail(r, v, key, "too many person-days");
        whole = whole * 10 + (uint64_t)(t[p] - '0');
        digits++;
    }
    if (p < len && t[p] == '.')
        for (p++; p < len && t[p] >= '0' && t[p] <= '9'; p++, decimals++) {
            if (decimals == 3)
                return rr_fail(r, v, key, "more than three decimals of a person-day");
            frac = frac * 10 + (uint64_t)(t[p] - '0');
        }
    if (!digits || (p < len && (t[p] == 'e' || t[p] == 'E')))
        return rr_fail(r, v, key, "not a number of person-days (digits, at most 3 decimals)");
    while (decimals++ < 3)
        frac *= 10;
    *out = whole * 1000 + frac;
    return OPMAP_OK;
}

int rr_effort(rr *r, const oj_value *o, const char *key, opmap_effort *out)
{
    const oj_value *e;
    int rc = rr_obj(r, o, key, &e);
    if (!rc && !(rc = rr_days(r, e, "min", &out->min)) &&
        !(rc = rr_days(r, e, "expected", &out->expected)))
        rc = rr_days(r, e, "max", &out->max);
    return rc;
}

int rr_name(rr *r, const oj_value *o, const char *key, rr_namer *name, int n, int *out)
{
    const char *s;
    int i, rc = rr_str(r, o, key, NULL, &s);
    if (rc)
        return rc;
    for (i = 0; i < n; i++)
        if (name(i) && strcmp(name(i), s) == 0) {
            *out = i;
            return OPMAP_OK;
        }
    return rr_fail(r, oj_get(o, key), key, "unknown value '%.60s'", s);
}

/* An array of strings joined by sep into one arena string ("" for none). */
int rr_joined(rr *r, const oj_value *o, const char *key, const char *sep, om_arena *A,
              const char **out)
{
    const oj_value *a;
    size_t i, len = 0;
    char *s;
    int rc = rr_arr(r, o, key, &a);
    if (rc)
        return rc;
    for (i = 0; i < a->n; i++) {
        if (a->kids[i].type != OJ_STRING)
            return rr_fail(r, &a->kids[i], key, "not a list of strings");
        len += a->kids[i].len + strlen(sep);
    }
    if (!(s = om_arena_alloc(A, len + 1)))
        return om_fail_mem(r->err, A->mem, r->source);
    for (i = 0, len = 0; i < a->n; i++) {
        if (i) {
            memcpy(s + len, sep, strlen(sep));
            len += strlen(sep);
        }
        memcpy(s + len, a->kids[i].s, a->kids[i].len);
        len += a->kids[i].len;
    }
    s[len] = '\0';
    *out = s;
    return OPMAP_OK;
}

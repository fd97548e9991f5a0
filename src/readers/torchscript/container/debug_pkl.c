/*
 * readers/torchscript/container/debug_pkl.c - .debug_pkl entries -> (code offset -> file,
 * line) records (see container/debug_pkl.h), read with the pickle machine of
 * container/pickle.c.
 */
#include "debug_pkl.h"

#include <stdlib.h>
#include <string.h>

#include "pickle.h"
#include "core/text.h"


static const tsc_pickle_value *item(const tsc_pickle_value *o, size_t i, int t)
{
    if (!o || (o->t != TSC_PICKLE_TUPLE && o->t != TSC_PICKLE_LIST) || i >= o->n)
        return NULL;
    if (t >= 0 && o->items[i]->t != t)
        return NULL;
    return o->items[i];
}

static uint32_t count_nl(const char *s, size_t n)
{
    uint32_t k = 0;
    const char *e = s + n;
    while ((s = memchr(s, '\n', (size_t)(e - s))) != NULL) {
        k++;
        s++;
    }
    return k;
}

/* Newlines before byte `start` of the text made of the string-table pieces in `list`. */
static int lines_before(tsc_pickle *p, tsc_pickle_value *list, const tsc_pickle_value *table, uint64_t start, uint64_t *nl)
{
    size_t k, lo, hi;
    if (!list->pre_len) {
        uint64_t tl = 0, tn = 0;
        if (!(list->pre_len = om_arena_array(&p->arena, list->n + 1, sizeof(uint64_t))) ||
            !(list->pre_nl = om_arena_array(&p->arena, list->n + 1, sizeof(uint64_t))))
            return ts_oom(p->c);
        for (k = 0; k < list->n; k++) {
            const tsc_pickle_value *ix = list->items[k], *s;
            if (ix->t != TSC_PICKLE_INT || ix->i < 0 || !(s = item(table, (size_t)ix->i, TSC_PICKLE_STR)))
                return tsc_pickle_bad(p, "source text index out of the string table");
            list->pre_len[k] = tl;
            list->pre_nl[k] = tn;
            tl += s->slen;
            tn += count_nl(s->s, s->slen);
        }
        list->pre_len[list->n] = tl;
        list->pre_nl[list->n] = tn;
    }
    /* the last piece starting at or before `start` */
    lo = 0;
    hi = list->n;
    while (lo + 1 < hi) {
        size_t mid = (lo + hi) / 2;
        if (list->pre_len[mid] <= start)
            lo = mid;
        else
            hi = mid;
    }
    *nl = 0;
    if (!list->n)
        return OPMAP_OK;
    {
        const tsc_pickle_value *s = item(table, (size_t)list->items[lo]->i, TSC_PICKLE_STR);
        uint64_t in = start - list->pre_len[lo];
        *nl = list->pre_nl[lo] + count_nl(s->s, in < s->slen ? (size_t)in : s->slen);
    }
    return OPMAP_OK;
}

/* A frame of the stack trace a traced module keeps as its source text ("path(12): forward\n",
 * innermost first): its path [s, +*len) and line, 0 when the piece is not one. */
static uint32_t frame_of(const tsc_pickle_value *piece, size_t *len)
{
    const char *s = piece->s, *e = piece->s + piece->slen, *close, *digits;
    uint32_t line = 0;
    for (close = s; close + 2 < e && memcmp(close, "): ", 3) != 0; close++)
        if (*close == '\n')
            return 0;
    if (close + 2 >= e)
        return 0;
    for (digits = close; digits > s && digits[-1] >= '0' && digits[-1] <= '9'; digits--)
        continue;
    if (digits == close || close - digits > 8 || digits - s < 2 || digits[-1] != '(')
        return 0;
    *len = (size_t)(digits - 1 - s);
    for (; digits < close; digits++)
        line = line * 10 + (uint32_t)(*digits - '0');
    return line;
}

/*
 * A traced module's source text is the Python stack the tracer saw, one frame a piece,
 * innermost first, the source's file and line being the innermost frame's. When the text
 * reads so, *file and *line become the innermost frame of the user's own code, outside
 * installed packages (om_installed_path: torch's nn.Linear is not where the model was
 * written) and before the tracer's own frames (om_tracer_path: what comes after is the
 * script that called torch.jit.trace, not the model); else they are left as they are.
 */
static int user_frame(tsc_pickle *p, const tsc_pickle_value *text, const tsc_pickle_value *table,
                      const tsc_pickle_value *fname, int64_t lineno, const char **file,
                      uint32_t *line)
{
    size_t k, len;
    for (k = 0; k < text->n && k < 256; k++) {
        const tsc_pickle_value *ix = text->items[k], *s;
        uint32_t l;
        if (ix->t != TSC_PICKLE_INT || ix->i < 0 || !(s = item(table, (size_t)ix->i, TSC_PICKLE_STR)))
            return OPMAP_OK;
        if (!(l = frame_of(s, &len)))
            return OPMAP_OK;
        if (k == 0 && (len != fname->slen || memcmp(s->s, fname->s, len) != 0 || l != lineno))
            return OPMAP_OK; /* source code, not a stack */
        if (om_tracer_path(s->s, len))
            return OPMAP_OK; /* the frames beyond call the tracer: not the model's */
        if (!om_installed_path(s->s, len)) {
            char *tmp;
            if (k == 0)
                return OPMAP_OK;
            if (!(tmp = om_arena_strndup(&p->arena, s->s, len)) ||
                !(*file = ts_intern_model(p->c, tmp)))
                return ts_oom(p->c);
            *line = l;
            return OPMAP_OK;
        }
    }
    return OPMAP_OK;
}

static int cmp_rec(const void *a, const void *b)
{
    const tsc_debug_rec *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

static int extract(tsc_pickle *p, tsc_pickle_value *top, tsc_debug_map *out)
{
    const tsc_pickle_value *table = NULL, *recs = top;
    size_t k;
    int sorted = 1;
    if (item(top, 0, TSC_PICKLE_STR) && top->n == 3 && top->items[0]->slen == 24 &&
        memcmp(top->items[0]->s, "FORMAT_WITH_STRING_TABLE", 24) == 0) {
        table = item(top, 1, TSC_PICKLE_TUPLE);
        recs = item(top, 2, TSC_PICKLE_TUPLE);
        if (!table || !recs)
            return tsc_pickle_bad(p, "not a debug-info string table and records");
    } else if (!top || top->t != TSC_PICKLE_TUPLE) {
        return tsc_pickle_bad(p, "not a tuple of debug records");
    }
    out->n = 0;
    if (!recs->n)
        return OPMAP_OK;
    if (!(out->recs = om_arena_array(&p->c->tmp, recs->n, sizeof(*out->recs))))
        return ts_oom(p->c);
    for (k = 0; k < recs->n; k++) {
        const tsc_pickle_value *r = recs->items[k], *off = item(r, 0, TSC_PICKLE_INT), *range = item(r, 1, -1);
        const tsc_pickle_value *source = item(range, 0, -1), *start = item(range, 1, TSC_PICKLE_INT);
        tsc_debug_rec *d = &out->recs[out->n];
        const tsc_pickle_value *fname = NULL, *lineno;
        uint64_t nl = 0;
        int rc;
        if (!off || off->i < 0 || !range || !source || !start || start->i < 0)
            return tsc_pickle_bad(p, "malformed debug record");
        d->off = (uint64_t)off->i;
        lineno = item(source, 2, TSC_PICKLE_INT);
        if (table) {
            const tsc_pickle_value *fi = item(source, 1, TSC_PICKLE_INT);
            tsc_pickle_value *text = source->n > 0 ? source->items[0] : NULL;
            if (!fi || !lineno || !text || text->t != TSC_PICKLE_LIST)
                return tsc_pickle_bad(p, "malformed debug source");
            if (fi->i > 0) {
                fname = item(table, (size_t)fi->i, TSC_PICKLE_STR);
                if (!fname)
                    return tsc_pickle_bad(p, "file index out of the string table");
            }
            if (fname && (rc = lines_before(p, text, table, (uint64_t)start->i, &nl)))
                return rc;
        } else {
            const tsc_pickle_value *text = item(source, 0, TSC_PICKLE_STR);
            fname = item(source, 1, TSC_PICKLE_STR);
            if (!lineno)
                return tsc_pickle_bad(p, "malformed debug source");
            if (fname && text)
                nl = count_nl(text->s, (uint64_t)start->i < text->slen ? (size_t)start->i
                                                                        : text->slen);
        }
        if (fname && fname->slen && lineno->i > 0) {
            char *tmp = om_arena_strndup(&p->arena, fname->s, fname->slen);
            if (!tmp || !(d->file = ts_intern_model(p->c, tmp)))
                return ts_oom(p->c);
            d->line = (uint32_t)((uint64_t)lineno->i + nl > UINT32_MAX ? UINT32_MAX
                                                                       : lineno->i + nl);
            if (table && !nl &&
                (rc = user_frame(p, source->items[0], table, fname, lineno->i, &d->file, &d->line)))
                return rc;
        }
        if (out->n && d->off < out->recs[out->n - 1].off)
            sorted = 0;
        out->n++;
    }
    if (!sorted)
        qsort(out->recs, out->n, sizeof(*out->recs), cmp_rec);
    return OPMAP_OK;
}

int tsc_debug_read(ts_ctx *c, const char *entry, const unsigned char *data, size_t len,
                   tsc_debug_map *out)
{
    tsc_pickle p;
    tsc_pickle_value *top = NULL;
    int rc;
    memset(out, 0, sizeof(*out));
    tsc_pickle_init(&p, c, entry, data, len);
    rc = tsc_pickle_run(&p, &top);
    if (rc == OPMAP_OK)
        rc = extract(&p, top, out);
    tsc_pickle_fini(&p);
    return rc;
}

int tsc_debug_find(const tsc_debug_map *d, uint64_t off, const char **file, uint32_t *line)
{
    size_t lo = 0, hi = d->n;
    if (!d->n || d->recs[0].off > off)
        return 0;
    while (lo + 1 < hi) {
        size_t mid = (lo + hi) / 2;
        if (d->recs[mid].off <= off)
            lo = mid;
        else
            hi = mid;
    }
    if (!d->recs[lo].file)
        return 0;
    *file = d->recs[lo].file;
    *line = d->recs[lo].line;
    return 1;
}

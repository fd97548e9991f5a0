/*
 * verify/results.c - a set of device results (opmap/verify.h): files read whole or not at
 * all, the passes and failures kept, indexed by signature.
 *
 * The same signature measured again on the same chip with the same versions is one result,
 * and a failure outranks a pass: a flaky operator is not verified by its lucky run.
 */
#include <string.h>

#include "core/context.h"
#include "core/err.h"
#include "core/hash.h"
#include "core/mapfile.h"
#include "results_read.h"

int opmap_results_new(opmap_results **out, opmap_ctx *ctx, opmap_error *err)
{
    opmap_results *s;
    om_err_clear(err);
    if (!out || !ctx)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_results_new: NULL argument");
    if (!(*out = s = om_ctx_calloc(ctx, sizeof(*s))))
        return om_fail(err, OPMAP_ENOMEM, NULL, "out of memory");
    s->ctx = ctx;
    om_mem_init(&s->mem, &ctx->al, ctx->limits.max_heap_bytes);
    om_arena_init(&s->arena, &s->mem, 0);
    om_vec_init(&s->entries, sizeof(om_vres));
    return OPMAP_OK;
}

void opmap_results_free(opmap_results *s)
{
    if (!s)
        return;
    if (s->slots)
        om_dealloc(&s->mem, s->slots, s->cap * sizeof(*s->slots));
    om_vec_free(&s->entries, &s->mem);
    om_arena_free(&s->arena);
    om_ctx_release(s->ctx, s);
}

size_t opmap_results_count(const opmap_results *s)
{
    return s ? s->entries.len : 0;
}

size_t om_results_first(const opmap_results *s, const char *sig, uint64_t h)
{
    size_t j;
    if (!s || !s->cap)
        return SIZE_MAX;
    for (j = h & (s->cap - 1); s->slots[j]; j = (j + 1) & (s->cap - 1)) {
        const om_vres *e = OM_RESULTS_AT(s, s->slots[j] - 1);
        if (e->h == h && strcmp(e->signature, sig) == 0)
            return s->slots[j] - 1;
    }
    return SIZE_MAX;
}

static int same_run(const om_vres *a, const om_vres *b)
{
    return strcmp(a->chip, b->chip) == 0 && strcmp(a->torch_npu, b->torch_npu) == 0 &&
           strcmp(a->cann, b->cann) == 0;
}

/* Entry i into the index (slots, cap): a new signature gets a slot, a known one the end of
 * its chain; a repeat of a run already there is merged into it (a failure wins) and 0 is
 * returned: the caller drops it. */
static int index_entry(om_vres *all, size_t i, size_t *slots, size_t cap)
{
    om_vres *e = &all[i];
    size_t j, k;
    for (j = e->h & (cap - 1); slots[j]; j = (j + 1) & (cap - 1)) {
        om_vres *first = &all[slots[j] - 1];
        if (first->h != e->h || strcmp(first->signature, e->signature) != 0)
            continue;
        for (k = slots[j] - 1;; k = all[k].next) {
            if (same_run(&all[k], e)) {
                if (all[k].passed && !e->passed) {
                    size_t next = all[k].next;
                    all[k] = *e;
                    all[k].next = next;
                }
                return 0;
            }
            if (all[k].next == SIZE_MAX)
                break;
        }
        all[k].next = i;
        return 1;
    }
    slots[j] = i + 1;
    return 1;
}

/* Rebuilds the index over every entry into `slots` (zeroed, cap of them): repeats merged
 * and the kept entries packed in order. Nothing here can fail. */
static void reindex(opmap_results *s, size_t *slots, size_t cap)
{
    om_vres *all = s->entries.data;
    size_t i, kept = 0;
    for (i = 0; i < s->entries.len; i++) {
        all[i].next = SIZE_MAX;
        if (index_entry(all, i, slots, cap))
            kept++;
        else
            all[i].signature = NULL; /* merged into an earlier one */
    }
    if (kept != s->entries.len) { /* pack, then index again: slot numbers moved */
        size_t k = 0;
        for (i = 0; i < s->entries.len; i++)
            if (all[i].signature)
                all[k++] = all[i];
        s->entries.len = k;
        memset(slots, 0, cap * sizeof(*slots));
        for (i = 0; i < k; i++) {
            all[i].next = SIZE_MAX;
            index_entry(all, i, slots, cap);
        }
    }
    if (s->slots)
        om_dealloc(&s->mem, s->slots, s->cap * sizeof(*s->slots));
    s->slots = slots;
    s->cap = cap;
}

static char *dup(opmap_results *s, const char *str)
{
    return om_arena_strdup(&s->arena, str);
}

/* The file's passes and failures appended (strings copied), then the index rebuilt; on a
 * failure the set keeps what it had. */
static int take(opmap_results *s, const char *source, const rd_file *f, const rd_entry *e,
                size_t n, opmap_error *err)
{
    size_t i, m = 0, old = s->entries.len, cap = 16, *slots;
    const char *chip, *tnpu, *cann, *src;
    for (i = 0; i < n; i++)
        m += e[i].outcome <= 1;
    while (cap < 2 * (old + m))
        cap *= 2;
    if (!(slots = om_calloc(&s->mem, cap, sizeof(*slots))))
        return om_fail_mem(err, &s->mem, source);
    if (!(chip = dup(s, f->chip)) || !(tnpu = dup(s, f->torch_npu)) ||
        !(cann = dup(s, f->cann)) || !(src = dup(s, source)))
        goto oom;
    for (i = 0; i < n; i++) {
        om_vres *v;
        if (e[i].outcome > 1)
            continue; /* errored or skipped: it measured nothing */
        if (!(v = om_vec_push(&s->entries, &s->mem)))
            goto oom;
        v->chip = chip, v->torch_npu = tnpu, v->cann = cann, v->source = src;
        v->passed = e[i].outcome == 1;
        v->max_abs = e[i].max_abs, v->max_rel = e[i].max_rel;
        v->cpu_ms = e[i].cpu_ms, v->device_ms = e[i].device_ms;
        if (!(v->signature = dup(s, e[i].signature)) || !(v->op = dup(s, e[i].op)) ||
            !(v->standard = dup(s, e[i].standard)) || !(v->message = dup(s, e[i].message)))
            goto oom;
        v->h = om_hash_name(v->signature);
    }
    reindex(s, slots, cap);
    return OPMAP_OK;
oom:
    s->entries.len = old;
    om_dealloc(&s->mem, slots, cap * sizeof(*slots));
    return om_fail_mem(err, &s->mem, source);
}

int opmap_results_add(opmap_results *s, const char *name, const void *data, size_t size,
                      opmap_error *err)
{
    rd r;
    rd_file f;
    rd_entry *e = NULL;
    oj_src js;
    oj_value *root;
    om_arena tree;
    size_t n = 0;
    int rc;
    om_err_clear(err);
    if (!s || (size && !data))
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_results_add: NULL argument");
    memset(&r, 0, sizeof(r));
    r.source = name ? name : "<memory>";
    r.err = err;
    om_arena_init(&tree, &s->mem, 0);
    js.mem = &s->mem;
    js.arena = &tree;
    js.err = err;
    js.source = r.source;
    js.max_depth = 8; /* a results file nests 3 deep */
    js.max_string = s->ctx->limits.max_string_bytes;
    if (size > s->ctx->limits.max_file_bytes)
        rc = om_fail(err, OPMAP_ELIMIT, r.source, "%zu bytes, over max_file_bytes", size);
    else if (!(rc = oj_parse(&js, data, size, &root)) && !(rc = om_results_header(&r, root, &f))) {
        n = f.results->n;
        if (n && !(e = om_calloc(&s->mem, n, sizeof(*e))))
            rc = om_fail_mem(err, &s->mem, r.source);
        else if (!(rc = om_results_entries(&r, &f, e)))
            rc = take(s, r.source, &f, e, n, err);
    }
    if (e)
        om_dealloc(&s->mem, e, n * sizeof(*e));
    om_arena_free(&tree);
    return rc;
}

int opmap_results_add_file(opmap_results *s, const char *path, opmap_error *err)
{
    om_mapped map;
    int rc;
    om_err_clear(err);
    if (!s || !path)
        return om_fail(err, OPMAP_EINVAL, NULL, "opmap_results_add_file: NULL argument");
    if ((rc = om_map_file_limit(&map, &s->mem, path, s->ctx->limits.max_file_bytes,
                                "max_file_bytes", err)))
        return rc;
    rc = opmap_results_add(s, path, map.data, (size_t)map.size, err);
    om_unmap(&map);
    return rc;
}

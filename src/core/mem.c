/*
 * core/mem.c - budgeted allocation and arenas (see mem.h).
 */
#include "mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *default_malloc(void *opaque, size_t size)
{
    (void)opaque;
    return malloc(size);
}

static void *default_realloc(void *opaque, void *p, size_t size)
{
    (void)opaque;
    return realloc(p, size);
}

static void default_free(void *opaque, void *p)
{
    (void)opaque;
    free(p);
}

void om_mem_init(om_mem *m, const opmap_allocator *al, uint64_t limit)
{
    memset(m, 0, sizeof(*m));
    if (al && al->malloc_fn) {
        m->al = *al;
    } else {
        m->al.malloc_fn = default_malloc;
        m->al.realloc_fn = default_realloc;
        m->al.free_fn = default_free;
    }
    m->limit = limit;
}

static int reserve(om_mem *m, size_t size)
{
    if (size > m->limit || m->used > m->limit - size) {
        m->over_limit = 1;
        return 0;
    }
    m->used += size;
    if (m->used > m->peak)
        m->peak = m->used;
    return 1;
}

int om_mem_charge(om_mem *m, size_t size)
{
    return reserve(m, size);
}

void om_mem_uncharge(om_mem *m, size_t size)
{
    m->used -= size <= m->used ? size : m->used;
}

void *om_alloc(om_mem *m, size_t size)
{
    void *p;
    if (size == 0)
        size = 1;
    if (!reserve(m, size))
        return NULL;
    p = m->al.malloc_fn(m->al.opaque, size);
    if (!p)
        m->used -= size;
    return p;
}

void *om_calloc(om_mem *m, size_t n, size_t size)
{
    size_t total;
    void *p;
    if (!om_mul_ok(n, size, &total))
        return NULL;
    p = om_alloc(m, total);
    if (p)
        memset(p, 0, total ? total : 1);
    return p;
}

void *om_realloc(om_mem *m, void *p, size_t old_size, size_t new_size)
{
    void *q;
    if (!p)
        return om_alloc(m, new_size);
    if (new_size > old_size && !reserve(m, new_size - old_size))
        return NULL;
    q = m->al.realloc_fn(m->al.opaque, p, new_size ? new_size : 1);
    if (!q) {
        if (new_size > old_size)
            m->used -= new_size - old_size;
        return NULL;
    }
    if (new_size < old_size)
        m->used -= old_size - new_size;
    return q;
}

void om_dealloc(om_mem *m, void *p, size_t size)
{
    if (!p)
        return;
    if (size == 0)
        size = 1;
    m->used -= size <= m->used ? size : m->used;
    m->al.free_fn(m->al.opaque, p);
}

/* ---- arena ---- */

struct om_chunk {
    om_chunk *next;
    size_t size;  /* usable bytes after the header */
    size_t used;
    /* data follows, 16-byte aligned */
};

#define CHUNK_HDR ((sizeof(om_chunk) + 15u) & ~(size_t)15u)

void om_arena_init(om_arena *a, om_mem *mem, size_t chunk_size)
{
    a->mem = mem;
    a->head = NULL;
    a->chunk_size = chunk_size ? chunk_size : 64 * 1024;
}

void *om_arena_alloc(om_arena *a, size_t size)
{
    om_chunk *c = a->head;
    size_t need = (size + 15u) & ~(size_t)15u;
    unsigned char *p;
    if (need < size)
        return NULL;
    if (!c || c->size - c->used < need) {
        size_t body = need > a->chunk_size ? need : a->chunk_size;
        size_t total;
        if (!om_add_ok(body, CHUNK_HDR, &total))
            return NULL;
        c = om_alloc(a->mem, total);
        if (!c)
            return NULL;
        c->size = body;
        c->used = 0;
        /* Big one-off blocks go behind the current chunk so its free space stays usable. */
        if (need > a->chunk_size && a->head) {
            c->next = a->head->next;
            a->head->next = c;
        } else {
            c->next = a->head;
            a->head = c;
        }
    }
    p = (unsigned char *)c + CHUNK_HDR + c->used;
    c->used += need;
    memset(p, 0, size);
    return p;
}

void *om_arena_array(om_arena *a, size_t n, size_t size)
{
    size_t total;
    if (!om_mul_ok(n, size, &total))
        return NULL;
    return om_arena_alloc(a, total ? total : 1);
}

char *om_arena_strndup(om_arena *a, const char *s, size_t n)
{
    char *p;
    size_t total;
    if (!om_add_ok(n, 1, &total))
        return NULL;
    p = om_arena_alloc(a, total);
    if (p && n)
        memcpy(p, s, n);
    return p;
}

char *om_arena_strdup(om_arena *a, const char *s)
{
    return om_arena_strndup(a, s ? s : "", s ? strlen(s) : 0);
}

char *om_arena_printf(om_arena *a, const char *fmt, ...)
{
    va_list ap;
    int n;
    char *p;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    p = om_arena_alloc(a, (size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void om_arena_free(om_arena *a)
{
    om_chunk *c = a->head;
    while (c) {
        om_chunk *next = c->next;
        om_dealloc(a->mem, c, CHUNK_HDR + c->size);
        c = next;
    }
    a->head = NULL;
}

/* ---- vector ---- */

void om_vec_init(om_vec *v, size_t elem)
{
    v->data = NULL;
    v->len = 0;
    v->cap = 0;
    v->elem = elem;
}

void *om_vec_push(om_vec *v, om_mem *m)
{
    unsigned char *slot;
    if (v->len == v->cap) {
        size_t ncap = v->cap ? v->cap * 2 : 8;
        size_t old_bytes, new_bytes;
        void *nd;
        if (ncap < v->cap || !om_mul_ok(ncap, v->elem, &new_bytes))
            return NULL;
        old_bytes = v->cap * v->elem;
        nd = om_realloc(m, v->data, old_bytes, new_bytes);
        if (!nd)
            return NULL;
        v->data = nd;
        v->cap = ncap;
    }
    slot = (unsigned char *)v->data + v->len * v->elem;
    memset(slot, 0, v->elem);
    v->len++;
    return slot;
}

void om_vec_free(om_vec *v, om_mem *m)
{
    if (v->data)
        om_dealloc(m, v->data, v->cap * v->elem);
    v->data = NULL;
    v->len = v->cap = 0;
}

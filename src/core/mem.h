/*
 * core/mem.h - budgeted allocation over the context's allocator, and an arena.
 *
 * Every object the library builds from untrusted input (model IR, table, result) draws
 * from one om_mem budget, so a hostile file can cost at most limits.max_heap_bytes.
 * om_mem remembers whether a failure was the budget or the allocator, so callers can
 * report OPMAP_ELIMIT rather than OPMAP_ENOMEM.
 */
#ifndef OM_MEM_H
#define OM_MEM_H

#include <stddef.h>
#include <stdint.h>

#include <opmap/context.h>

typedef struct om_mem {
    opmap_allocator al;
    uint64_t limit;     /* bytes this budget may hold at once */
    uint64_t used;
    uint64_t peak;
    int over_limit;     /* set when a request was refused for the budget */
} om_mem;

void om_mem_init(om_mem *m, const opmap_allocator *al, uint64_t limit);

/* Sized allocation: the caller passes the size back on free/realloc (no headers). */
void *om_alloc(om_mem *m, size_t size);
void *om_calloc(om_mem *m, size_t n, size_t size);
void *om_realloc(om_mem *m, void *p, size_t old_size, size_t new_size);
void om_dealloc(om_mem *m, void *p, size_t size);

/* Memory the budget's owner holds outside the allocator (a file's chunks read into an
 * anonymous mapping): 1 when it fits the limit, else 0 with over_limit set. */
int om_mem_charge(om_mem *m, size_t size);
void om_mem_uncharge(om_mem *m, size_t size);

/* Overflow-checked arithmetic: return 0 on overflow. */
static inline int om_mul_ok(size_t a, size_t b, size_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}
static inline int om_add_ok(size_t a, size_t b, size_t *out)
{
    return !__builtin_add_overflow(a, b, out);
}

/*
 * Arena: bump allocation in chunks, freed all at once. Objects whose parts all die
 * together (a model's IR, a table, a result) live in one arena.
 */
typedef struct om_chunk om_chunk;
typedef struct om_arena {
    om_mem *mem;
    om_chunk *head;
    size_t chunk_size;
} om_arena;

void om_arena_init(om_arena *a, om_mem *mem, size_t chunk_size);
void *om_arena_alloc(om_arena *a, size_t size);            /* 16-byte aligned, zeroed */
void *om_arena_array(om_arena *a, size_t n, size_t size);  /* overflow-checked */
char *om_arena_strndup(om_arena *a, const char *s, size_t n);
char *om_arena_strdup(om_arena *a, const char *s);
char *om_arena_printf(om_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void om_arena_free(om_arena *a);

/*
 * Growable vector of fixed-size elements, on an om_mem budget.
 */
typedef struct om_vec {
    void *data;
    size_t len;
    size_t cap;
    size_t elem;
} om_vec;

void om_vec_init(om_vec *v, size_t elem);
void *om_vec_push(om_vec *v, om_mem *m);  /* returns the new zeroed slot, or NULL */
void om_vec_free(om_vec *v, om_mem *m);
#define OM_VEC_AT(v, type, i) (((type *)(v)->data)[i])

#endif /* OM_MEM_H */

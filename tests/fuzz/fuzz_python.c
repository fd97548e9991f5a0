/*
 * tests/fuzz/fuzz_python.c - the Python source reader (readers/python) on fuzzed text,
 * through its internal API, with roomy or tiny limits picked per input.
 *
 * Invariants: OK or a clean error (its code returned, a one-line message naming the
 * file, a limit error naming the limit, a line within the text); every site's line and
 * column within the text, its strings set; every byte of the budget returned.
 */
#include "fuzz_common.h"

#include "core/mem.h"
#include "readers/python/python_source.h"

/* Lines of the text (LF, CRLF, lone CR) and the longest line's bytes once read: a file
 * declaring Latin-1 or cp1252 (PEP 263) is read transcoded to UTF-8, and sites' columns
 * count the UTF-8 bytes, so a byte over 0x7f counts as the 3 it may become (cp1252's
 * 0x80 is U+20AC). */
static void text_shape(const uint8_t *d, size_t n, uint32_t *lines, size_t *longest)
{
    size_t i, width = 0;
    *lines = 1;
    *longest = 0;
    for (i = 0; i < n; i++) {
        if (d[i] == '\n' || (d[i] == '\r' && (i + 1 == n || d[i + 1] != '\n'))) {
            if (width > *longest)
                *longest = width;
            (*lines)++;
            width = 0;
        } else {
            width += d[i] < 0x80 ? 1 : 3; /* a CRLF's CR counted, as a line's byte */
        }
    }
    if (width > *longest)
        *longest = width;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int tight = (fz_hash(data, size) & 3) == 0;
    opmap_limits lim;
    opmap_allocator al = { 0, 0, 0, 0 };
    fz_alloc a = { 0 };
    om_mem mem;
    om_arena arena;
    om_vec sites;
    opmap_error err;
    uint32_t lines;
    size_t longest, i;
    int rc;
    al.malloc_fn = fz_malloc;
    al.realloc_fn = fz_realloc;
    al.free_fn = fz_free;
    al.opaque = &a;
    memset(&lim, 0, sizeof(lim));
    lim.max_file_bytes = 1u << 20;
    lim.max_heap_bytes = tight ? 64 * 1024 : 64u << 20;
    lim.max_depth = tight ? 3 : 64;
    lim.max_string_bytes = tight ? 8 : 1u << 20;
    om_mem_init(&mem, &al, lim.max_heap_bytes);
    om_arena_init(&arena, &mem, 4096);
    om_vec_init(&sites, sizeof(py_site));
    rc = py_scan_source("fuzz.py", data, size, &lim, &arena, &sites, &err);
    text_shape(data, size, &lines, &longest);
    if (rc != OPMAP_OK) {
        fz_check_error(rc, &err, "fuzz.py");
        FZ_CHECK(err.line <= lines, "error at line %u of %u: %s", err.line, lines, err.message);
    }
    for (i = 0; i < sites.len; i++) {
        const py_site *s = &OM_VEC_AT(&sites, py_site, i);
        FZ_CHECK(s->line >= 1 && s->line <= lines, "site %zu at line %u of %u", i, s->line,
                 lines);
        FZ_CHECK(s->col >= 1 && s->col <= longest + 1, "site %zu at column %u, lines of %zu",
                 i, s->col, longest);
        FZ_CHECK(s->kind == PY_SITE_STRING || s->name, "site %zu has no name", i);
        FZ_CHECK(s->text && s->file, "site %zu (kind %d, %u:%u) has no text", i, (int)s->kind,
                 s->line, s->col);
        FZ_CHECK(s->kind < PY_SITE_STRING_ARG || s->value, "string site %zu has no value", i);
    }
    om_vec_free(&sites, &mem);
    om_arena_free(&arena);
    FZ_CHECK(mem.used == 0, "%llu bytes of the budget never returned",
             (unsigned long long)mem.used);
    FZ_CHECK(a.live == 0, "%ld allocations never freed", a.live);
    return 0;
}

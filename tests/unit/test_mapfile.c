/*
 * tests/unit/test_mapfile.c - models are read, never mapped (core/mapfile.h).
 *
 * A reader that touched a byte without asking the lazy view for it would read a zero: every
 * model of libonnx-testdata, the TorchScript fixtures, the hostile corpus and the cached
 * truth models is read through 1-byte chunks (64 bytes over 4 MB) and must give the same report (or the same
 * error, at the same offset) as when read whole. A file that shrinks or changes under the
 * view is reported as such, deterministically (the file is changed between the open and
 * the reads, not raced).
 */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <opmap/opmap.h>

#include "../../src/api/model_internal.h"
#include "../../src/core/mapfile.h"

typedef struct fixture {
    opmap_ctx *ctx;
    opmap_table *table;
    size_t files, failed;
} fixture;

static int setup(void **state)
{
    static fixture f;
    if (opmap_ctx_new(&f.ctx, NULL, NULL) != OPMAP_OK ||
        opmap_table_load_default(&f.table, f.ctx, NULL) != OPMAP_OK)
        return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    opmap_table_free(f->table);
    opmap_ctx_free(f->ctx);
    return 0;
}

/* The JSON report of `path` read with (small_max, shift), or the error as text. */
static char *report_of(fixture *f, const char *path, uint64_t small_max, unsigned shift)
{
    opmap_model *m = NULL;
    opmap_result *r = NULL;
    opmap_error err;
    char *text = NULL, *out;
    size_t size;
    int rc = om_model_open_file_view(&m, f->ctx, path, small_max, shift, &err);
    if (rc == OPMAP_OK)
        rc = opmap_scan(&r, f->ctx, m, f->table, NULL, &err);
    if (rc == OPMAP_OK)
        rc = opmap_report_write_memory(f->ctx, (const opmap_result *const *)&r, 1,
                                       OPMAP_REPORT_JSON, NULL, &text, &size, &err);
    opmap_result_free(r);
    opmap_model_free(m);
    if (rc == OPMAP_OK) {
        out = strdup(text);
        opmap_free(f->ctx, text);
    } else {
        char msg[1200];
        opmap_error_format(&err, msg, sizeof(msg));
        out = strdup(msg);
        f->failed++;
    }
    assert_non_null(out);
    return out;
}

static void same_both_ways(fixture *f, const char *path, off_t size)
{
    /* big files: the default view is the reference (a whole copy would cost their size) */
    int big = size > (off_t)64 << 20;
    char *whole = report_of(f, path, big ? OM_MAP_SMALL_FILE : UINT64_MAX, OM_MAP_CHUNK_SHIFT);
    /* one-byte chunks: only what is asked for is there (64 bytes for big files: time) */
    unsigned shift = size > (off_t)4 << 20 ? 6 : 0;
    char *lazy = report_of(f, path, 0, shift);
    if (strcmp(whole, lazy) != 0)
        fail_msg("%s: read through %u-byte chunks differs from read whole", path, 1u << shift);
    free(whole);
    free(lazy);
    f->files++;
}

/* Every regular file below dir (a test tree: depth-bounded all the same). */
static void walk(fixture *f, const char *dir, int depth, const char *suffix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d || depth > 8) {
        if (d)
            closedir(d);
        return;
    }
    while ((e = readdir(d))) {
        char path[4096];
        struct stat st;
        size_t n = strlen(e->d_name), k = suffix ? strlen(suffix) : 0;
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (lstat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode))
            walk(f, path, depth + 1, suffix);
        else if (S_ISREG(st.st_mode) && (!suffix || (n >= k && !strcmp(e->d_name + n - k, suffix))))
            same_both_ways(f, path, st.st_size);
    }
    closedir(d);
}

static void test_mapfile__chunks_read_as_whole(void **state)
{
    fixture *f = *state;
    size_t before;
    walk(f, OPMAP_TESTDATA_DIR, 0, ".onnx");
    assert_true(f->files > 1000);
    before = f->files;
    walk(f, OPMAP_SOURCE_DIR "/tests/fixtures/torchscript", 0, NULL);
    walk(f, OPMAP_SOURCE_DIR "/tests/hostile/cases", 0, NULL);
    assert_true(f->files > before + 50);
    walk(f, OPMAP_TRUTH_CACHE, 0, ".onnx"); /* when the truth suite has exported them */
    assert_true(f->failed > 0 && f->failed < f->files); /* errors compared too */
    print_message("%zu files, %zu of them errors, the same both ways\n", f->files, f->failed);
}

/* A file of `size` bytes (a pattern: the view must give back these, not zeros). */
static void make_file(const char *path, size_t size)
{
    FILE *fp = fopen(path, "wb");
    size_t i;
    assert_non_null(fp);
    for (i = 0; i < size; i++)
        fputc((int)(i % 251) + 1, fp);
    fclose(fp);
}

static void test_mapfile__a_file_that_shrinks_is_reported(void **state)
{
    char path[] = "/tmp/opmap-mapfile-XXXXXX";
    om_mem mem;
    om_mapped m;
    opmap_error err;
    int fd = mkstemp(path);
    (void)state;
    assert_true(fd >= 0);
    close(fd);
    make_file(path, 1 << 20);
    om_mem_init(&mem, NULL, 1u << 30);
    assert_int_equal(om_map_file_view(&m, &mem, path, UINT64_MAX, 0, 12, &err), OPMAP_OK);
    assert_non_null(m.region);
    om_need(&m, 1000, 10);
    assert_int_equal(m.data[1005], 1005 % 251 + 1);
    assert_int_equal(om_map_check(&m, path, &err), OPMAP_OK);
    /* truncated to half: what is past the new end reads as zero, and is reported */
    assert_int_equal(truncate(path, 1 << 19), 0);
    om_need(&m, (1 << 19) + 4096, 100);
    assert_int_equal(m.data[(1 << 19) + 4096], 0);
    assert_int_equal(om_map_check(&m, path, &err), OPMAP_EIO);
    assert_non_null(strstr(err.message, "file changed while being read"));
    assert_int_equal(err.offset, (1 << 19) + 4096);
    assert_true(mem.used > 0);
    om_unmap(&m);
    assert_int_equal(mem.used, 0); /* the chunks were drawn from the budget and returned */
    unlink(path);
}

static void test_mapfile__a_file_rewritten_in_place_is_reported(void **state)
{
    char path[] = "/tmp/opmap-mapfile-XXXXXX";
    om_mem mem;
    om_mapped m;
    opmap_error err;
    FILE *fp;
    int fd = mkstemp(path);
    (void)state;
    assert_true(fd >= 0);
    close(fd);
    make_file(path, 1 << 20);
    om_mem_init(&mem, NULL, 1u << 30);
    assert_int_equal(om_map_file_view(&m, &mem, path, UINT64_MAX, 0, 12, &err), OPMAP_OK);
    om_need(&m, 0, 100);
    fp = fopen(path, "ab"); /* grows: no read comes up short, the size says it */
    assert_non_null(fp);
    fputs("more", fp);
    fclose(fp);
    assert_int_equal(om_map_check(&m, path, &err), OPMAP_EIO);
    assert_non_null(strstr(err.message, "file changed while being read"));
    om_unmap(&m);
    unlink(path);
}

static void test_mapfile__chunks_count_against_the_budget(void **state)
{
    char path[] = "/tmp/opmap-mapfile-XXXXXX";
    om_mem mem;
    om_mapped m;
    opmap_error err;
    int fd = mkstemp(path);
    (void)state;
    assert_true(fd >= 0);
    close(fd);
    make_file(path, 1 << 20);
    om_mem_init(&mem, NULL, 64 * 1024);
    assert_int_equal(om_map_file_view(&m, &mem, path, UINT64_MAX, 0, 12, &err), OPMAP_OK);
    om_need(&m, 0, 32 * 1024);       /* fits */
    assert_int_equal(om_map_check(&m, path, &err), OPMAP_OK);
    om_need(&m, 100 * 1024, 64 * 1024); /* would not */
    assert_int_equal(m.data[100 * 1024], 0);
    assert_int_equal(om_map_check(&m, path, &err), OPMAP_ELIMIT);
    om_unmap(&m);
    assert_int_equal(mem.used, 0);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mapfile__a_file_that_shrinks_is_reported),
        cmocka_unit_test(test_mapfile__a_file_rewritten_in_place_is_reported),
        cmocka_unit_test(test_mapfile__chunks_count_against_the_budget),
        cmocka_unit_test(test_mapfile__chunks_read_as_whole),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

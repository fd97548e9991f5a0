/*
 * tests/unit/test_formats.c - the format registry (readers/formats.c, issue 30): what a
 * directory search reads by name and first bytes (opmap_format_detect), each format's
 * public entry and traits, and the order a model's bytes are tried in.
 */
#define _DEFAULT_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <opmap/opmap.h>

#include "readers/formats.h"

static char dir[64];

static const char *file(const char *name, const char *text)
{
    static char path[128];
    FILE *f;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    assert_non_null(f = fopen(path, "wb"));
    fputs(text, f);
    fclose(f);
    return path;
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/opmap-formats-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    char cmd[128];
    (void)state;
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    return system(cmd);
}

static void test_formats__by_name(void **state)
{
    static const struct { const char *name; opmap_format f; } cases[] = {
        { "m.onnx", OPMAP_FORMAT_ONNX }, { "dir/M.ONNX", OPMAP_FORMAT_ONNX },
        { "m.pt", OPMAP_FORMAT_TORCHSCRIPT }, { "m.ptl", OPMAP_FORMAT_TORCHSCRIPT },
        { "m.pt2", OPMAP_FORMAT_TORCH_EXPORT }, { "train.py", OPMAP_FORMAT_PYTHON },
        { "k.cu", OPMAP_FORMAT_PYTHON }, { "k.cuh", OPMAP_FORMAT_PYTHON },
        { ".onnx", OPMAP_FORMAT_UNKNOWN }, { "m.onnx.bak", OPMAP_FORMAT_UNKNOWN },
        { "weights.bin", OPMAP_FORMAT_UNKNOWN }, { "m.pth", OPMAP_FORMAT_UNKNOWN },
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (opmap_format_detect(cases[i].name, OPMAP_DETECT_NAME_ONLY) != cases[i].f ||
            opmap_format_detect(cases[i].name, 0) != cases[i].f) /* no file: the name says it */
            fail_msg("%s is not %s", cases[i].name, opmap_format_name(cases[i].f));
    assert_int_equal(opmap_format_detect(NULL, 0), OPMAP_FORMAT_UNKNOWN);
}

/* A .txt is a printed graph by its start only, read from a regular file only. */
static void test_formats__by_content(void **state)
{
    char fifo[128];
    (void)state;
    assert_int_equal(opmap_format_detect(file("g.txt", "\n  graph(%x : Float(2)):\n"), 0),
                     OPMAP_FORMAT_TORCHSCRIPT_GRAPH);
    assert_int_equal(opmap_format_detect(file("g2.TXT", "graph("), 0),
                     OPMAP_FORMAT_TORCHSCRIPT_GRAPH);
    assert_int_equal(opmap_format_detect(file("n.txt", "notes: graph(\n"), 0), OPMAP_FORMAT_UNKNOWN);
    assert_int_equal(opmap_format_detect(file("e.txt", ""), 0), OPMAP_FORMAT_UNKNOWN);
    assert_int_equal(opmap_format_detect(file("g3.txt", "graph("), OPMAP_DETECT_NAME_ONLY),
                     OPMAP_FORMAT_UNKNOWN);
    assert_int_equal(opmap_format_detect("/no/such/graph.txt", 0), OPMAP_FORMAT_UNKNOWN);
    /* a FIFO is never opened for its start (the call would block) */
    snprintf(fifo, sizeof(fifo), "%s/p.txt", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(opmap_format_detect(fifo, 0), OPMAP_FORMAT_UNKNOWN);
}

static void test_formats__registry(void **state)
{
    int id, named = 0;
    (void)state;
    for (id = 1; id < OPMAP_FORMAT_COUNT; id++) {
        opmap_format_info f = { .size = sizeof(f) };
        assert_int_equal(opmap_format_info_get((opmap_format)id, &f), OPMAP_OK);
        assert_string_equal(f.name, opmap_format_name((opmap_format)id));
        assert_true(f.title[0] && f.extensions[0]);
        /* each format is one of: answered by ATC, answered in ATen terms, source code */
        named += !!(f.traits & (OPMAP_FORMAT_TRAIT_ATC | OPMAP_FORMAT_TRAIT_ATEN |
                                OPMAP_FORMAT_TRAIT_SOURCES));
        assert_int_equal(om_format_of((opmap_format)id)->id, id);
    }
    assert_int_equal(named, OPMAP_FORMAT_COUNT - 1);
    {
        opmap_format_info f = { .size = sizeof(f) };
        assert_int_equal(opmap_format_info_get(OPMAP_FORMAT_UNKNOWN, &f), OPMAP_EINVAL);
        assert_int_equal(opmap_format_info_get((opmap_format)OPMAP_FORMAT_COUNT, &f), OPMAP_EINVAL);
        f.size = 8;
        assert_int_equal(opmap_format_info_get(OPMAP_FORMAT_ONNX, &f), OPMAP_EINVAL);
        assert_int_equal(opmap_format_info_get(OPMAP_FORMAT_ONNX, NULL), OPMAP_EINVAL);
    }
    assert_string_equal(opmap_format_name((opmap_format)99), "unknown");
    assert_true(om_format_has(OPMAP_FORMAT_ONNX, OPMAP_FORMAT_TRAIT_ATC));
    assert_true(om_format_has(OPMAP_FORMAT_TORCH_EXPORT, OPMAP_FORMAT_TRAIT_ATEN));
    assert_true(om_format_has(OPMAP_FORMAT_TORCHSCRIPT_GRAPH, OPMAP_FORMAT_TRAIT_PRINTED));
    assert_false(om_format_has(OPMAP_FORMAT_UNKNOWN, OPMAP_FORMAT_TRAIT_ATC));
}

/* Bytes are tried zip readers first (torch.export before TorchScript), then printed text,
 * then ONNX, which takes anything; Python sources are never opened as a model. */
static void test_formats__probe_order(void **state)
{
    static const opmap_format want[] = { OPMAP_FORMAT_TORCH_EXPORT, OPMAP_FORMAT_TORCHSCRIPT,
                                         OPMAP_FORMAT_TORCHSCRIPT_GRAPH, OPMAP_FORMAT_ONNX };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        assert_int_equal(om_format_probe(i)->id, want[i]);
    assert_null(om_format_probe(i));
    assert_null(om_format_probe(i - 1)->sniff); /* the last takes anything */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formats__by_name),
        cmocka_unit_test(test_formats__by_content),
        cmocka_unit_test(test_formats__registry),
        cmocka_unit_test(test_formats__probe_order),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

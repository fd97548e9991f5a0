/*
 * tests/unit/test_ts_zip.c - a TorchScript archive's zip and root module read as
 * torch.jit.load reads them (what torch 1.13 does with each case is measured by
 * tests/oracle/differential_ts.py): end records found in comments and after them, zip64,
 * names equal but for case, the archive's folder, and data.pkl's root object.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <opmap/opmap.h>

#include "readers/model.h"
#include "../../src/walker/walker.h"
#include "../support/zip_build.h"

#define ROOT_PKL(cls) "\x80\x02" "c__torch__\n" cls "\n)\x81}b."
#define CLASS(cls, op) "class " cls "(Module):\n  __parameters__ = []\n  __buffers__ = []\n" \
    "  training : bool\n  def forward(self: __torch__." cls ",\n    x: Tensor) -> Tensor:\n" \
    "    return torch." op "(x)\n"

/* ---- bytes ---- */

typedef struct buf {
    unsigned char *p;
    size_t n;
} buf;

static void put(buf *b, const void *data, size_t n)
{
    b->p = realloc(b->p, b->n + n + 1);
    assert_non_null(b->p);
    if (n)
        memcpy(b->p + b->n, data, n);
    b->n += n;
}

static void put_le(buf *b, uint64_t v, int n)
{
    unsigned char t[8];
    int i;
    for (i = 0; i < n; i++)
        t[i] = (unsigned char)(v >> (8 * i));
    put(b, t, (size_t)n);
}

static void eocd(buf *b, uint32_t n, uint32_t size, uint32_t off, uint32_t comment)
{
    put_le(b, 0x06054b50u, 4);
    put_le(b, 0, 4);
    put_le(b, n, 2);
    put_le(b, n, 2);
    put_le(b, size, 4);
    put_le(b, off, 4);
    put_le(b, comment, 2);
}

static void zip64_end(buf *b, uint64_t n, uint64_t size, uint64_t off, uint32_t disks)
{
    uint64_t at = b->n;
    put_le(b, 0x06064b50u, 4);
    put_le(b, 44, 8);
    put_le(b, 45, 2);
    put_le(b, 45, 2);
    put_le(b, 0, 8);
    put_le(b, n, 8);
    put_le(b, n, 8);
    put_le(b, size, 8);
    put_le(b, off, 8);
    put_le(b, 0x07064b50u, 4);
    put_le(b, 0, 4);
    put_le(b, at, 8);
    put_le(b, disks, 4);
}

/* Entries of an archive whose root is `root` and whose code/__torch__.py is `code`. */
static void entries(zb_entry *e, const char *folder_code, const char *pkl, const char *code)
{
    e[0].name = "archive/data.pkl";
    e[0].data = pkl;
    e[0].len = strlen(pkl);
    e[0].deflate = 0;
    e[1].name = folder_code;
    e[1].data = code;
    e[1].len = strlen(code);
    e[1].deflate = 1;
    e[2].name = "archive/version";
    e[2].data = "3\n";
    e[2].len = 2;
    e[2].deflate = 0;
}

/* A real archive (M: relu) and a decoy one (M: tanh), local entries of both first: the
 * directory records of each, and where each starts. */
typedef struct two {
    zb_zip z;
    buf locals, real_cd, decoy_cd;
} two;

static void two_archives(two *t)
{
    zb_entry e[6];
    memset(t, 0, sizeof(*t));
    entries(e, "archive/code/__torch__.py", ROOT_PKL("M"), CLASS("M", "relu"));
    entries(e + 3, "archive/code/__torch__.py", ROOT_PKL("M"), CLASS("M", "tanh"));
    assert_int_equal(zb_build(e, 6, &t->z), 0);
    put(&t->locals, t->z.buf, t->z.cd_off[0]);
    put(&t->real_cd, t->z.buf + t->z.cd_off[0], t->z.cd_off[3] - t->z.cd_off[0]);
    put(&t->decoy_cd, t->z.buf + t->z.cd_off[3], t->z.eocd_off - t->z.cd_off[3]);
}

static void two_free(two *t)
{
    zb_free(&t->z);
    free(t->locals.p);
    free(t->real_cd.p);
    free(t->decoy_cd.p);
}

/* ---- opening ---- */

typedef struct ops {
    size_t relu, tanh;
} ops;

static int count_op(void *payload, const om_visit *v)
{
    ops *o = payload;
    o->relu += strcmp(v->node->op, "relu") == 0;
    o->tanh += strcmp(v->node->op, "tanh") == 0;
    return OPMAP_OK;
}

static int no_note(void *payload, const char *message, const char *path)
{
    (void)payload;
    (void)message;
    (void)path;
    return OPMAP_OK;
}

/* Opens `b`: the status; the message into msg; the relu and tanh counts into *o. */
static int open_buf(opmap_ctx *ctx, const buf *b, ops *o, char *msg, size_t msgsz)
{
    opmap_model *m = NULL;
    opmap_error err;
    int rc = opmap_model_open_memory(&m, ctx, b->p, b->n, "t.pt", &err);
    memset(o, 0, sizeof(*o));
    msg[0] = 0;
    if (rc != OPMAP_OK) {
        opmap_error_format(&err, msg, msgsz);
        return rc;
    }
    {
        om_mem mem;
        om_mem_init(&mem, NULL, 1u << 30);
        assert_int_equal(om_walk(&m->ir, opmap_ctx_limits(ctx), &mem, count_op, no_note, o,
                                 &err), OPMAP_OK);
    }
    opmap_model_free(m);
    return OPMAP_OK;
}

static void expect_ops(opmap_ctx *ctx, const buf *b, size_t relu, size_t tanh)
{
    ops o;
    char msg[1200];
    int rc = open_buf(ctx, b, &o, msg, sizeof(msg));
    if (rc != OPMAP_OK)
        fail_msg("expected a model, got %d: %s", rc, msg);
    assert_int_equal(o.relu, relu);
    assert_int_equal(o.tanh, tanh);
}

static void expect_error(opmap_ctx *ctx, const buf *b, int code, const char *needle)
{
    ops o;
    char msg[1200];
    int rc = open_buf(ctx, b, &o, msg, sizeof(msg));
    if (rc != code || !strstr(msg, needle))
        fail_msg("expected %d with '%s', got %d: %s", code, needle, rc, msg);
}

static int setup(void **state)
{
    opmap_ctx *ctx;
    if (opmap_ctx_new(&ctx, NULL, NULL) != OPMAP_OK)
        return -1;
    *state = ctx;
    return 0;
}

static int teardown(void **state)
{
    opmap_ctx_free(*state);
    return 0;
}

/* ---- end records ---- */

static void test_end__comment_full_of_records(void **state)
{
    opmap_ctx *ctx = *state;
    buf b = { NULL, 0 };
    two t;
    size_t i, k = 65535 / 22;
    uint32_t n = 3;
    /* an empty zip's end record whose 65,535-byte comment is 2,978 more of them: the last
     * one is the end record (no entries), found in one backward pass over the comment */
    eocd(&b, 0, 0, 0, 65535);
    for (i = 0; i < k; i++)
        eocd(&b, 0, 0, 0, 0);
    put(&b, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 65535 - k * 22);
    expect_error(ctx, &b, OPMAP_EUNSUPPORTED, "no code/");
    free(b.p);
    /* a real archive whose comment holds copies of its end record, each one's comment
     * reaching the end: the last copy is read, the same directory */
    two_archives(&t);
    memset(&b, 0, sizeof(b));
    put(&b, t.locals.p, t.locals.n);
    put(&b, t.real_cd.p, t.real_cd.n);
    eocd(&b, n, (uint32_t)t.real_cd.n, (uint32_t)t.locals.n, (uint32_t)(k * 22));
    for (i = 0; i < k; i++)
        eocd(&b, n, (uint32_t)t.real_cd.n, (uint32_t)t.locals.n, (uint32_t)((k - 1 - i) * 22));
    expect_ops(ctx, &b, 1, 0);
    free(b.p);
    two_free(&t);
}

static void test_end__decoy_in_comment(void **state)
{
    opmap_ctx *ctx = *state;
    buf b = { NULL, 0 };
    two t;
    size_t i;
    uint32_t n = 3, decoy_at;
    two_archives(&t);
    /* the end record's comment holds a second directory and its end record: torch reads
     * that one (the last signature), whatever the comment lengths say */
    put(&b, t.locals.p, t.locals.n);
    put(&b, t.real_cd.p, t.real_cd.n);
    decoy_at = (uint32_t)(b.n + 22);
    eocd(&b, n, (uint32_t)t.real_cd.n, (uint32_t)t.locals.n, (uint32_t)(t.decoy_cd.n + 22));
    put(&b, t.decoy_cd.p, t.decoy_cd.n);
    eocd(&b, n, (uint32_t)t.decoy_cd.n, decoy_at, 100); /* a comment past the end */
    expect_ops(ctx, &b, 0, 1);
    free(b.p);
    /* a signature with less than a whole record after it is not an end record */
    memset(&b, 0, sizeof(b));
    put(&b, t.locals.p, t.locals.n);
    put(&b, t.real_cd.p, t.real_cd.n);
    eocd(&b, n, (uint32_t)t.real_cd.n, (uint32_t)t.locals.n, 10);
    put(&b, "PK\x05\x06\0\0\0\0\0\0", 10);
    expect_ops(ctx, &b, 1, 0);
    free(b.p);
    /* miniz finds an end record up to 69,584 bytes before the end (past the 65,535-byte
     * comment limit), and none further back */
    for (i = 69562; i <= 69563; i++) {
        memset(&b, 0, sizeof(b));
        put(&b, t.locals.p, t.locals.n);
        put(&b, t.real_cd.p, t.real_cd.n);
        eocd(&b, n, (uint32_t)t.real_cd.n, (uint32_t)t.locals.n, 65535);
        b.p = realloc(b.p, b.n + i);
        assert_non_null(b.p);
        memset(b.p + b.n, 'x', i);
        b.n += i;
        if (i == 69562)
            expect_ops(ctx, &b, 1, 0);
        else
            expect_error(ctx, &b, OPMAP_EFORMAT, "no end of central directory record");
        free(b.p);
    }
    two_free(&t);
}

static void test_end__zip64(void **state)
{
    opmap_ctx *ctx = *state;
    buf b = { NULL, 0 };
    two t;
    uint32_t n = 3;
    two_archives(&t);
    /* what torch.jit.save writes: a zip64 end record and locator before the end record */
    put(&b, t.locals.p, t.locals.n);
    put(&b, t.real_cd.p, t.real_cd.n);
    zip64_end(&b, n, t.real_cd.n, t.locals.n, 1);
    eocd(&b, n, (uint32_t)t.real_cd.n, (uint32_t)t.locals.n, 0);
    expect_ops(ctx, &b, 1, 0);
    free(b.p);
    /* the same with 0xFFFF / 0xFFFFFFFF in the end record */
    memset(&b, 0, sizeof(b));
    put(&b, t.locals.p, t.locals.n);
    put(&b, t.real_cd.p, t.real_cd.n);
    zip64_end(&b, n, t.real_cd.n, t.locals.n, 1);
    eocd(&b, 0xFFFF, 0xFFFFFFFFu, 0xFFFFFFFFu, 0);
    expect_ops(ctx, &b, 1, 0);
    free(b.p);
    /* the zip64 record names another directory than the end record: torch takes it */
    memset(&b, 0, sizeof(b));
    put(&b, t.locals.p, t.locals.n);
    put(&b, t.real_cd.p, t.real_cd.n);
    put(&b, t.decoy_cd.p, t.decoy_cd.n);
    zip64_end(&b, n, t.decoy_cd.n, t.locals.n + t.real_cd.n, 1);
    eocd(&b, n, (uint32_t)t.real_cd.n, (uint32_t)t.locals.n, 0);
    expect_ops(ctx, &b, 0, 1);
    /* a locator counting two disks, or pointing past the end */
    b.p[b.n - 22 - 4] = 2;
    expect_error(ctx, &b, OPMAP_EFORMAT, "multi-disk");
    b.p[b.n - 22 - 4] = 1;
    b.p[b.n - 22 - 6] = 0x40;
    expect_error(ctx, &b, OPMAP_EFORMAT, "zip64 locator points past the end");
    free(b.p);
    /* a locator pointing at no zip64 record: the end record's values */
    memset(&b, 0, sizeof(b));
    put(&b, t.locals.p, t.locals.n);
    put(&b, t.real_cd.p, t.real_cd.n);
    put_le(&b, 0x07064b50u, 4);
    put_le(&b, 0, 4);
    put_le(&b, 0, 8);
    put_le(&b, 1, 4);
    eocd(&b, n, (uint32_t)t.real_cd.n, (uint32_t)t.locals.n, 0);
    expect_ops(ctx, &b, 1, 0);
    free(b.p);
    two_free(&t);
}

/* ---- names ---- */

static void build(buf *b, const zb_entry *e, size_t n)
{
    zb_zip z;
    assert_int_equal(zb_build(e, n, &z), 0);
    memset(b, 0, sizeof(*b));
    put(b, z.buf, z.len);
    zb_free(&z);
}

static void test_names__as_torch_finds_them(void **state)
{
    opmap_ctx *ctx = *state;
    zb_entry e[5];
    buf b;
    /* the same code entry twice, or twice but for case: torch reads either, refused */
    entries(e, "archive/code/__torch__.py", ROOT_PKL("M"), CLASS("M", "relu"));
    e[3] = e[1];
    e[3].data = CLASS("M", "tanh");
    e[3].len = strlen(CLASS("M", "tanh"));
    build(&b, e, 4);
    expect_error(ctx, &b, OPMAP_EFORMAT, "two entries named 'archive/code/__torch__.py'");
    free(b.p);
    e[3].name = "archive/CODE/__torch__.py";
    build(&b, e, 4);
    expect_error(ctx, &b, OPMAP_EFORMAT, "but for case");
    free(b.p);
    /* torch's lookup ignores case: CODE/ and ARCHIVE/ are found */
    entries(e, "ARCHIVE/Code/__torch__.py", ROOT_PKL("M"), CLASS("M", "relu"));
    build(&b, e, 3);
    expect_ops(ctx, &b, 1, 0);
    free(b.p);
    /* code outside the folder of the first entry is never read: the class is unknown */
    entries(e, "other/code/__torch__.py", ROOT_PKL("M"), CLASS("M", "relu"));
    build(&b, e, 3);
    expect_error(ctx, &b, OPMAP_EFORMAT, "no code/ entry defines");
    free(b.p);
    /* a first entry in no folder; no data.pkl; no version */
    entries(e + 1, "archive/code/__torch__.py", ROOT_PKL("M"), CLASS("M", "relu"));
    e[0].name = "readme";
    e[0].data = "hi";
    e[0].len = 2;
    e[0].deflate = 0;
    build(&b, e, 4);
    expect_error(ctx, &b, OPMAP_EFORMAT, "first entry is not in a folder");
    free(b.p);
    build(&b, e + 2, 2);
    expect_error(ctx, &b, OPMAP_EFORMAT, "no archive/data.pkl");
    free(b.p);
    build(&b, e + 1, 2);
    expect_error(ctx, &b, OPMAP_EFORMAT, "no archive/version");
    free(b.p);
}

/* ---- the root object ---- */

static void expect_root(opmap_ctx *ctx, const char *pkl, size_t pkl_len, size_t relu,
                        size_t tanh, const char *error)
{
    zb_entry e[3];
    buf b;
    entries(e, "archive/code/__torch__.py", "", CLASS("M", "relu") CLASS("D", "tanh"));
    e[0].data = pkl;
    e[0].len = pkl_len;
    build(&b, e, 3);
    if (error)
        expect_error(ctx, &b, OPMAP_EFORMAT, error);
    else
        expect_ops(ctx, &b, relu, tanh);
    free(b.p);
}

#define ROOT(pkl, relu, tanh, error) expect_root(ctx, pkl, sizeof(pkl) - 1, relu, tanh, error)

static void test_root__the_object_data_pkl_builds(void **state)
{
    opmap_ctx *ctx = *state;
    ROOT(ROOT_PKL("M"), 1, 0, NULL);
    ROOT(ROOT_PKL("D"), 0, 1, NULL);
    /* REDUCE builds it as BUILD does; memo copies keep their class */
    ROOT("\x80\x02" "c__torch__\nD\n}R.", 0, 1, NULL);
    ROOT("\x80\x02" "c__torch__\nM\nq\x01" "c__torch__\nD\n)\x81}bq\x02" "0", 0, 0, "0x30");
    ROOT("\x80\x02" "c__torch__\nD\n}R(1", 0, 0, "0x31");
    /* GLOBAL pushes an index: BUILD of the int 0 is the first GLOBAL's class */
    ROOT("\x80\x02" "c__torch__\nD\n" "\x85\x81K\x00}b.", 0, 1, NULL);
    /* NEWOBJ drops only its argument: a second GLOBAL stays on the stack */
    ROOT("\x80\x02" "c__torch__\nM\nc__torch__\nD\n)\x81}b.", 0, 0, "leaves 2 values");
    /* what torch refuses */
    ROOT("\x80\x02" "K\x01.", 0, 0, "not an object of a class");
    ROOT("\x80\x02" "c__torch__\nZ\n)\x81}b.", 0, 0, "'__torch__.Z', which no code/");
    ROOT("\x80\x04" "c__torch__\nM\n)\x81}b.", 0, 0, "PROTO 2");
    ROOT("\x80\x02" "c__torch__\nM\n)\x81" "N" "b.", 0, 0, "not a dict");
    ROOT("\x80\x02" "c__torch__\nM\n)\x81}\x8c\x01" "ab.", 0, 0, "0x8c");
    ROOT("\x80\x02" "c__torch__\nM\n)\x81}b", 0, 0, "cut short");
    ROOT("\x80\x02" "ctorch\nFloatStorage\n}b.", 0, 0, "a scalar type");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_end__comment_full_of_records),
        cmocka_unit_test(test_end__decoy_in_comment),
        cmocka_unit_test(test_end__zip64),
        cmocka_unit_test(test_names__as_torch_finds_them),
        cmocka_unit_test(test_root__the_object_data_pkl_builds),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}

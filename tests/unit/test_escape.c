/*
 * tests/unit/test_escape.c - what never reaches a terminal or a text report from a file name
 * or a model string (issue 29): C0 controls, DEL, the C1 controls (CSI as UTF-8 C2 9B),
 * bidirectional embeddings, overrides and isolates, malformed UTF-8; the public
 * opmap_text_for_terminal, the error record, the text and HTML writers' escaping.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <opmap/opmap.h>

#include "core/err.h"
#include "core/out.h"
#include "report/escape.h"

/* every bidi control of U+202A..U+202E and U+2066..U+2069, and the C1 CSI */
static const char *const refused[] = {
    "\xe2\x80\xaa", "\xe2\x80\xab", "\xe2\x80\xac", "\xe2\x80\xad", "\xe2\x80\xae",
    "\xe2\x81\xa6", "\xe2\x81\xa7", "\xe2\x81\xa8", "\xe2\x81\xa9", "\xc2\x9b", "\x1b",
    "\x7f", "\x07", "\xff", "\xc0\xaf",
};

static void test_escape__terminal_text(void **state)
{
    char buf[64];
    size_t i;
    (void)state;
    for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        char in[32];
        snprintf(in, sizeof(in), "a%sb", refused[i]);
        opmap_text_for_terminal(in, buf, sizeof(buf));
        if (strncmp(buf, "a?", 2) != 0 || buf[strlen(buf) - 1] != 'b' || strchr(buf, 0x1b))
            fail_msg("'%s' passes case %zu", buf, i);
    }
    /* text that is not a control passes as it is: accents, CJK, the neighbours of the
     * bidi controls (U+2029, U+202F, U+2065 is unassigned but not a control, U+206A) */
    opmap_text_for_terminal("caf\xc3\xa9 \xe6\xa8\xa1\xe5\x9e\x8b \xe2\x80\xaf\xe2\x81\xaa",
                            buf, sizeof(buf));
    assert_string_equal(buf, "caf\xc3\xa9 \xe6\xa8\xa1\xe5\x9e\x8b \xe2\x80\xaf\xe2\x81\xaa");
    /* a line break or a tab is a space: one line; the return is the full length */
    assert_int_equal(opmap_text_for_terminal("x\r\ny\tz", buf, sizeof(buf)), 6);
    assert_string_equal(buf, "x  y z");
    /* only whole sequences are written when the buffer is short */
    assert_int_equal(opmap_text_for_terminal("ab\xc3\xa9", buf, 4), 4);
    assert_string_equal(buf, "ab");
}

/* The error record one-lines what it quotes: a file name and a message both. */
static void test_escape__error_record(void **state)
{
    opmap_error err;
    char msg[1200];
    (void)state;
    om_fail(&err, OPMAP_EFORMAT, "m\xe2\x80\xae.onnx", "node '\x1b[2J\xc2\x9b' bad");
    opmap_error_format(&err, msg, sizeof(msg));
    /* each byte that may not pass is a '?' (a 3-byte override is "???") */
    assert_string_equal(msg, "m???.onnx: node '?[2J?" "?' bad");
}

typedef struct sink {
    char buf[256];
    size_t n;
} sink;

static int collect(void *payload, const void *data, size_t size)
{
    sink *s = payload;
    if (s->n + size >= sizeof(s->buf))
        return -1;
    memcpy(s->buf + s->n, data, size);
    s->n += size;
    s->buf[s->n] = 0;
    return 0;
}

/* The text report and the HTML writer: a bidi override in a model string becomes '?'. */
static void test_escape__report_writers(void **state)
{
    sink s;
    om_out o;
    (void)state;
    memset(&s, 0, sizeof(s));
    om_out_init(&o, collect, &s);
    om_out_term(&o, "relu\xe2\x80\xae" "evil\xe2\x81\xa6x");
    om_out_html(&o, "|<\xe2\x80\xad>");
    assert_int_equal(om_out_finish(&o), OPMAP_OK);
    assert_string_equal(s.buf, "relu???evil???x|&lt;???&gt;");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escape__terminal_text),
        cmocka_unit_test(test_escape__error_record),
        cmocka_unit_test(test_escape__report_writers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

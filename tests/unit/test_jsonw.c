/*
 * Unit tests of the streaming JSON writer (src/report/jsonw.c): whatever the strings, keys
 * included, the output is JSON that cJSON reads back to the same text.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "../../src/report/jsonw.h"
#include "core/out.h"

typedef struct sink {
    char data[4096];
    size_t len;
} sink;

static int to_sink(void *payload, const void *data, size_t size)
{
    sink *s = payload;
    if (s->len + size >= sizeof(s->data))
        return -1;
    memcpy(s->data + s->len, data, size);
    s->len += size;
    s->data[s->len] = 0;
    return 0;
}

/* {key: value} written by jsonw, parsed back by cJSON */
static cJSON *write_pair(const char *key, const char *value, int compact, sink *s)
{
    om_out o;
    jsonw w;
    memset(s, 0, sizeof(*s));
    om_out_init(&o, to_sink, s);
    jw_init(&w, &o, compact);
    jw_object(&w);
    jw_kstring(&w, key, value);
    jw_end_object(&w);
    assert_int_equal(om_out_finish(&o), 0);
    return cJSON_ParseWithLength(s->data, s->len);
}

static void test_keys_are_escaped_like_strings(void **state)
{
    static const char *const names[] = {
        "as\\end910b", "say \"hi\"", "tab\there", "nl\nline", "esc\x1b[31m", "<b>&amp;</b>",
        "\xe6\x98\x87\xe8\x85\xbe", /* 昇腾: valid UTF-8 stays as it is */
    };
    size_t i;
    int compact;
    (void)state;
    for (compact = 0; compact <= 1; compact++)
        for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
            sink s;
            cJSON *doc = write_pair(names[i], names[i], compact, &s);
            cJSON *item;
            assert_non_null(doc);
            item = cJSON_GetObjectItemCaseSensitive(doc, names[i]);
            assert_non_null(item);
            assert_string_equal(cJSON_GetStringValue(item), names[i]);
            cJSON_Delete(doc);
        }
}

static void test_bytes_that_are_not_utf8_become_replacement_characters(void **state)
{
    sink s;
    cJSON *doc = write_pair("k\xff", "v\xc3", 1, &s);
    (void)state;
    assert_non_null(doc);
    assert_string_equal(s.data, "{\"k\xef\xbf\xbd\":\"v\xef\xbf\xbd\"}");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "k\xef\xbf\xbd")),
                        "v\xef\xbf\xbd");
    cJSON_Delete(doc);
}

static void test_pretty_and_compact_layouts(void **state)
{
    sink s;
    cJSON *doc;
    (void)state;
    doc = write_pair("a", "b", 0, &s);
    assert_string_equal(s.data, "{\n  \"a\": \"b\"\n}");
    cJSON_Delete(doc);
    doc = write_pair("a", "b", 1, &s);
    assert_string_equal(s.data, "{\"a\":\"b\"}");
    cJSON_Delete(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys_are_escaped_like_strings),
        cmocka_unit_test(test_bytes_that_are_not_utf8_become_replacement_characters),
        cmocka_unit_test(test_pretty_and_compact_layouts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

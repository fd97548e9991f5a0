/*
 * tests/fuzz/fuzz_common.h - what the harnesses share: a counting allocator (every object
 * freed means every byte returned), invariant checks that abort with a message (a crash to
 * libFuzzer, a failed test to the standalone driver), and report checks: every format the
 * library knows is written and checked for the escaping its format promises.
 *
 * Harnesses assert invariants, not just "no crash": an error carries its code, a one-line
 * message and where; a model that opens scans; a report is valid JSON; model strings never
 * reach HTML/XML unescaped, CSV cells never start a formula, text has no control bytes.
 */
#ifndef OPMAP_FUZZ_COMMON_H
#define OPMAP_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <opmap/opmap.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_CHECK(cond, ...)                                                              \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "%s:%d: invariant failed: %s\n  ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                \
            fputc('\n', stderr);                                                         \
            abort();                                                                     \
        }                                                                                \
    } while (0)

/* ---- a counting allocator: after everything is freed, nothing may be outstanding ---- */

typedef struct fz_alloc {
    long live;       /* blocks allocated and not freed */
} fz_alloc;

static void *fz_malloc(void *opaque, size_t size)
{
    void *p = malloc(size ? size : 1);
    if (p)
        ((fz_alloc *)opaque)->live++;
    return p;
}

static void *fz_realloc(void *opaque, void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (p && !ptr)
        ((fz_alloc *)opaque)->live++;
    return p;
}

static void fz_free(void *opaque, void *ptr)
{
    if (ptr) {
        ((fz_alloc *)opaque)->live--;
        free(ptr);
    }
}

/*
 * A context with limits small enough that one input cannot run for long (a fan-out of
 * calls still has room to expand to thousands of instances) and, when `tight`, tiny ones
 * so the limit paths themselves are exercised.
 */
static opmap_ctx *fz_ctx(fz_alloc *a, int tight)
{
    opmap_ctx_options o = OPMAP_CTX_OPTIONS_INIT;
    opmap_ctx *ctx = NULL;
    opmap_error err;
    o.allocator.malloc_fn = fz_malloc;
    o.allocator.realloc_fn = fz_realloc;
    o.allocator.free_fn = fz_free;
    o.allocator.opaque = a;
    o.limits.max_heap_bytes = tight ? 256 * 1024 : 64u << 20;
    o.limits.max_nodes = tight ? 40 : 100000;
    o.limits.max_depth = tight ? 3 : 0;
    o.limits.max_string_bytes = tight ? 8 : 0;
    o.limits.max_yaml_depth = tight ? 4 : 0;
    o.limits.max_pickle_depth = tight ? 3 : 0;
    o.limits.max_expansions = tight ? 40 : 100000;
    o.limits.max_zip_entries = tight ? 16 : 0;
    o.limits.max_entry_bytes = tight ? 512 : 0;
    o.limits.max_yaml_nodes = tight ? 200 : 0;
    FZ_CHECK(opmap_ctx_new(&ctx, &o, &err) == OPMAP_OK, "%s", err.message);
    return ctx;
}

static void fz_ctx_free(opmap_ctx *ctx, fz_alloc *a)
{
    opmap_ctx_free(ctx);
    FZ_CHECK(a->live == 0, "%ld allocations never freed", a->live);
}

/* A cheap hash of the input, to pick options deterministically per input. */
static uint32_t fz_hash(const uint8_t *d, size_t n)
{
    uint32_t h = 2166136261u;
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ d[i]) * 16777619u;
    return h;
}

/* ---- errors ---- */

/* A string a terminal shows as text: no C0 controls, DEL, C1 controls (as UTF-8) or bad UTF-8. */
static int fz_term_safe(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned char c = *p;
        size_t n, i;
        if (c >= 0x20 && c < 0x7f) {
            p++;
            continue;
        }
        if (c < 0xC2 || c > 0xF4)
            return 0;
        n = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        for (i = 1; i < n; i++)
            if (p[i] < 0x80 || p[i] > 0xBF)
                return 0;
        if (c == 0xC2 && p[1] < 0xA0)
            return 0;
        p += n;
    }
    return 1;
}

/*
 * Every failure: the record's code is the status returned, the message is one non-empty
 * line a terminal can print, and the source names the input.
 */
static void fz_check_error(int rc, const opmap_error *err, const char *name)
{
    FZ_CHECK(err->code == rc, "err.code %d, returned %d", err->code, rc);
    FZ_CHECK(err->message[0], "empty message for status %d", rc);
    FZ_CHECK(memchr(err->message, '\0', sizeof(err->message)), "message not terminated");
    FZ_CHECK(fz_term_safe(err->message), "message not one clean line: %s", err->message);
    FZ_CHECK(fz_term_safe(err->source), "source not one clean line: %s", err->source);
    FZ_CHECK(strncmp(err->source, name, strlen(name)) == 0, "source '%s', expected '%s'",
             err->source, name);
    if (rc == OPMAP_ELIMIT)
        FZ_CHECK(strstr(err->message, "max_") || strstr(err->message, "limit"),
                 "a limit error must name the limit: %s", err->message);
}

/* ---- reports ---- */

typedef struct fz_buf {
    char *data;
    size_t len, cap;
} fz_buf;

static int fz_buf_write(void *payload, const void *data, size_t size)
{
    fz_buf *b = payload;
    if (b->len + size + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        char *nd;
        while (cap < b->len + size + 1)
            cap *= 2;
        if (!(nd = realloc(b->data, cap)))
            return -1;
        b->data = nd;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, size);
    b->len += size;
    b->data[b->len] = '\0';
    return 0;
}

/*
 * Markup checks. Model strings land in text and attribute values, escaped; so the tags of a
 * report can only be the writer's own. Outside <script> and <style> (whose fixed content
 * may hold '<'), every tag must be one the writers use, no attribute may be an event
 * handler, no value a javascript: URL, and there is at most one script element (the
 * writer's own: the page's CSP allows inline script, so an injected one would run).
 */
static const char *const fz_html_tags[] = {
    "html", "head", "body", "meta", "title", "style", "script", "section", "div", "span", "p",
    "b", "i", "em", "strong", "small", "code", "pre", "ul", "ol", "li", "h1", "h2", "h3", "h4",
    "table", "thead", "tbody", "tfoot", "tr", "th", "td", "details", "summary", "figure",
    "figcaption", "svg", "rect", "text", "g", "line", "path", "circle", "title", "option",
    "select", "input", "label", "button", "footer", "header", "main", "nav", "br", "hr", "a",
    "sub", "sup", "abbr", "caption", "col", "colgroup", "dl", "dt", "dd", "mark", "output",
    "testsuites", "testsuite", "testcase", "failure", "skipped", "error", "properties",
    "property", "system-out", "system-err", NULL
};

static int fz_ieq(const char *a, size_t n, const char *b)
{
    size_t i;
    for (i = 0; i < n; i++) {
        char c = a[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (!b[i] || c != b[i])
            return 0;
    }
    return b[n] == '\0';
}

static const char *fz_stristr(const char *h, const char *needle)
{
    size_t n = strlen(needle);
    for (; *h; h++)
        if (fz_ieq(h, n, needle))
            return h;
    return NULL;
}

static size_t fz_count(const char *h, const char *needle)
{
    size_t n = 0, len = strlen(needle);
    const char *p = h;
    while (*p) {
        size_t i;
        for (i = 0; i < len && p[i]; i++) {
            char c = p[i];
            if (c >= 'A' && c <= 'Z')
                c = (char)(c - 'A' + 'a');
            if (c != needle[i])
                break;
        }
        if (i == len)
            n++;
        p++;
    }
    return n;
}

static void fz_check_markup(const char *format, const char *out)
{
    const char *p = out;
    FZ_CHECK(fz_count(out, "<script") <= 1 && fz_count(out, "</script") <= 1,
             "%s report holds more than one script element", format);
    while ((p = strchr(p, '<'))) {
        const char *name = ++p, *end;
        size_t n;
        const char *const *t;
        if (*p == '!' || *p == '?') { /* doctype, comment, XML declaration */
            p = strchr(p, '>');
            if (!p)
                break;
            continue;
        }
        if (*name == '/')
            name++;
        for (end = name; (*end >= 'a' && *end <= 'z') || (*end >= 'A' && *end <= 'Z') ||
                         (*end >= '0' && *end <= '9') || *end == '-';
             end++)
            ;
        n = (size_t)(end - name);
        if (!n) /* '<' not starting a tag: text such as "a < b" in the writer's prose */
            continue;
        for (t = fz_html_tags; *t; t++)
            if (fz_ieq(name, n, *t))
                break;
        FZ_CHECK(*t, "%s report holds a tag the writers never use: <%.*s", format, (int)n, name);
        /* attributes, to the end of the tag */
        p = end;
        while (*p && *p != '>') {
            const char *an;
            while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '/')
                p++;
            an = p;
            while (*p && *p != '=' && *p != '>' && *p != ' ' && *p != '\t' && *p != '\n' &&
                   *p != '/')
                p++;
            if (p - an >= 2 && (an[0] == 'o' || an[0] == 'O') && (an[1] == 'n' || an[1] == 'N'))
                FZ_CHECK(0, "%s report holds an event handler attribute: %.*s", format,
                         (int)(p - an), an);
            if (*p == '=') {
                char q = *++p;
                const char *v = p;
                if (q == '"' || q == '\'') {
                    const char *close = strchr(p + 1, q);
                    if (!close)
                        break;
                    v = p + 1;
                    FZ_CHECK(!(close - v >= 11 && fz_ieq(v, 11, "javascript:")),
                             "%s report holds a javascript: URL", format);
                    p = close + 1;
                } else {
                    while (*p && *p != ' ' && *p != '>')
                        p++;
                }
            }
        }
        /* skip the fixed content of script and style elements */
        if (fz_ieq(name, n, "script") || fz_ieq(name, n, "style")) {
            const char *close = fz_stristr(p, fz_ieq(name, n, "script") ? "</script" : "</style");
            if (!close)
                break;
            p = close;
        }
    }
}

/* No CSV cell may start like a formula (= + @ TAB CR, or - not followed by a digit or '.'). */
static void fz_check_csv(const char *out)
{
    const char *p = out;
    int at_cell = 1;
    while (*p) {
        if (at_cell) {
            const char *c = p;
            if (*c == '"')
                c++;
            /* (an empty last cell is followed by the row's own CRLF: not content) */
            FZ_CHECK(!(*c == '=' || *c == '+' || *c == '@' || *c == '\t' ||
                       (*c == '\r' && !(c == p && c[1] == '\n')) ||
                       (*c == '-' && !((c[1] >= '0' && c[1] <= '9') || c[1] == '.'))),
                     "CSV cell starts a formula: %.40s", p);
            at_cell = 0;
        }
        if (*p == '"') {
            /* a quoted cell: to its closing quote ("" is an escaped quote) */
            for (p++; *p; p++) {
                if (*p == '"' && p[1] == '"')
                    p++;
                else if (*p == '"')
                    break;
            }
            if (*p)
                p++;
            continue;
        }
        if (*p == ',' || *p == '\n')
            at_cell = 1;
        p++;
    }
}

/* Text for a terminal: one line at a time, each clean (see fz_term_safe). */
static void fz_check_text(const fz_buf *b)
{
    char *copy = malloc(b->len + 1), *line;
    FZ_CHECK(copy, "out of memory");
    memcpy(copy, b->data ? b->data : "", b->len + 1);
    FZ_CHECK(strlen(copy) == b->len, "text report holds a NUL byte");
    for (line = copy; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        FZ_CHECK(fz_term_safe(line), "text report line holds controls or bad UTF-8: %.60s",
                 line);
        line = nl ? nl + 1 : NULL;
    }
    free(copy);
}

/*
 * Markdown: code spans are literal, so tags inside them are text; outside them the markup
 * checks apply. No control byte but newline anywhere, and table rows stay whole: after a
 * delimiter row, every line up to a blank one starts and ends with '|' (a newline from a
 * model would end the row and start free Markdown, links and images included).
 */
static void fz_check_markdown(const fz_buf *b)
{
    char *copy = malloc(b->len + 1), *p, *line;
    int in_table = 0, in_code = 0;
    size_t i;
    FZ_CHECK(copy, "out of memory");
    for (i = 0; i < b->len; i++)
        FZ_CHECK((unsigned char)b->data[i] >= 0x20 && b->data[i] != 0x7f ? 1 : b->data[i] == '\n',
                 "markdown report holds control byte 0x%02x at %zu", (unsigned char)b->data[i],
                 i);
    memcpy(copy, b->data, b->len + 1);
    for (line = copy; *line;) {
        char *nl = strchr(line, '\n');
        size_t len;
        if (nl)
            *nl = '\0';
        len = strlen(line);
        if (in_table && !len)
            in_table = 0;
        else if (in_table)
            FZ_CHECK(line[0] == '|' && line[len - 1] == '|', "markdown table row broken: %.60s",
                     line);
        if (!strncmp(line, "|---", 4) || !strncmp(line, "| ---", 5))
            in_table = 1;
        if (!nl)
            break;
        line = nl + 1;
    }
    /* blank out code spans, then check the markup */
    memcpy(copy, b->data, b->len + 1);
    for (p = copy; *p; p++) {
        if (*p == '`')
            in_code = !in_code;
        else if (in_code && *p != '\n')
            *p = ' ';
        if (*p == '\n')
            in_code = 0;
    }
    fz_check_markup("markdown", copy);
    free(copy);
}

/* Every report is UTF-8: a name that is not must not pass through as it is. */
static int fz_utf8_valid(const unsigned char *p, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned char c = p[i];
        size_t n, k;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c < 0xC2 || c > 0xF4)
            return 0;
        n = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        if (c == 0xE0) lo = 0xA0;
        else if (c == 0xED) hi = 0x9F;
        else if (c == 0xF0) lo = 0x90;
        else if (c == 0xF4) hi = 0x8F;
        if (i + n > len || p[i + 1] < lo || p[i + 1] > hi)
            return 0;
        for (k = 2; k < n; k++)
            if (p[i + k] < 0x80 || p[i + k] > 0xBF)
                return 0;
        i += n;
    }
    return 1;
}

/* Checks one report in `format` (a name from opmap_report_format_name). */
static void fz_check_report(const char *format, const fz_buf *b)
{
    FZ_CHECK(fz_utf8_valid((const unsigned char *)b->data, b->len),
             "%s report is not valid UTF-8", format);
    if (strcmp(format, "json") == 0 || strcmp(format, "sarif") == 0 ||
        strcmp(format, "atc-precheck") == 0 || strcmp(format, "registry") == 0) {
        cJSON *doc = cJSON_ParseWithLength(b->data, b->len);
        FZ_CHECK(doc, "%s report is not valid JSON", format);
        cJSON_Delete(doc);
    } else if (strcmp(format, "text") == 0) {
        fz_check_text(b);
    } else if (strcmp(format, "html") == 0 || strcmp(format, "junit") == 0) {
        fz_check_markup(format, b->data);
    } else if (strcmp(format, "markdown") == 0) {
        fz_check_markdown(b);
    } else if (strcmp(format, "csv") == 0) {
        fz_check_csv(b->data);
    }
}

/*
 * Writes reports over `results` and checks each: one format per input, picked by
 * `variant`, and every format the library knows for one input in eight (eight reports per
 * input would cut the fuzzer's speed for little coverage). `variant` also picks options
 * (costs, a currency that needs escaping) so their code paths are covered too.
 */
static void fz_write_reports(opmap_ctx *ctx, const opmap_result *const *results, size_t n,
                             unsigned variant)
{
    unsigned f, count = 0, only;
    opmap_report_options ro = OPMAP_REPORT_OPTIONS_INIT;
    if (variant & 1) {
        ro.day_rate = 812.5;
        ro.currency = "<b>\"EUR\"</b>";
    }
    while (opmap_report_format_name((opmap_report_format)count))
        count++;
    only = (variant >> 4) % count;
    for (f = 0; f < count; f++) {
        const char *name = opmap_report_format_name((opmap_report_format)f);
        fz_buf b = { NULL, 0, 0 };
        opmap_error err;
        if ((variant & 14) != 0 && f != only)
            continue;
        int rc = opmap_report_write(ctx, results, n, (opmap_report_format)f, &ro, fz_buf_write,
                                    &b, &err);
        FZ_CHECK(rc == OPMAP_OK, "%s report: %s", name, err.message);
        FZ_CHECK(b.data, "%s report is empty", name);
        fz_check_report(name, &b);
        free(b.data);
    }
}

#endif /* OPMAP_FUZZ_COMMON_H */

/*
 * cli/cli_help.c - the options `opmap scan`, `opmap baseline` and `opmap merge` share, as one
 * table (as libgit2's option specs): the parser (cli_opts.c) takes getopt's options and which
 * command each belongs to from it, and --help is written from it. Every list a help text
 * gives (the formats a directory search reads, the report formats, the finding kinds, the
 * headline's defaults, the statuses) is asked of the library, so it cannot go stale.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define S (1u << CLI_SCAN)
#define B (1u << CLI_BASELINE)
#define M (1u << CLI_MERGE)

static const char *const sections[CLI_SEC_COUNT] = {
    "what to answer for", "reports", "estimate",
    "headline (the verdict every report starts with, docs/reports.md)", "CI gate",
    "the waivers written", "other",
};

/* {reports}, {kinds}, {blocked}, {needs_work}, {statuses} are the library's lists. */
const cli_option cli_options[] = {
    { "table", OPT_TABLE, 0, "FILE", S | B | M, CLI_SEC_ANSWER,
      "use this table instead of the built-in one (merge: the table the reports were written "
      "with)" },
    { "soc", OPT_SOC, 0, "CHIP[,CHIP]|all", S | B, CLI_SEC_ANSWER,
      "the chips to answer for (default: the table's, ascend910b): family ids (ascend910b) or "
      "exact parts as npu-smi info prints them (Ascend910B3), in any case" },
    { "torch-npu", OPT_TORCH_NPU, 0, "VERSION", S | B, CLI_SEC_ANSWER,
      "answer for that torch_npu version (2.1, 2.6.0, 2.1.0.post3): an operator whose kernel "
      "comes later (or is gone) is rewrite" },
    { "cann", OPT_CANN, 0, "VERSION", S | B, CLI_SEC_ANSWER,
      "refused: the table has no per-operator CANN ranges" },
    { "results", OPT_RESULTS, 0, "FILE", S, CLI_SEC_ANSWER,
      "device results of opmap testgen's tests (repeatable): each operator they match is "
      "marked verified on that chip; a pass on every instance costs its effort's minimum" },
    { "mode", OPT_MODE, 0, "eager|graph", S | B, CLI_SEC_ANSWER,
      "how the model will run (default eager); graph: torch.compile with torchair, so each "
      "ATen operator of a TorchScript or torch.export model also needs a torchair converter "
      "that does not raise (ONNX models are unchanged)" },
    { "workload", OPT_WORKLOAD, 0, "inference|training", S | B, CLI_SEC_ANSWER,
      "what the model is run for (default inference); training: each ATen operator also "
      "needs its backward on the NPU, and fused-kernel advice names only kernels with a "
      "backward (ONNX models are inference graphs: answered for inference)" },
    { "format", OPT_FORMAT, 0, "F[,F...]", S | M, CLI_SEC_REPORTS,
      "{reports} (every format; atc-precheck: the check_result.json atc --mode=3 would "
      "write)" },
    { "output", 'o', 'o', "PATH", S | B | M, CLI_SEC_REPORTS,
      "a file, or a directory for several formats (opmap-report.EXT); default: standard "
      "output (baseline: the waiver file)" },
    { "weights", OPT_WEIGHTS, 0, "FILE", S | B, CLI_SEC_ESTIMATE,
      "person-day weights per status (YAML: the body of the table's weights: section, "
      "docs/reports.md)" },
    { "weight", OPT_WEIGHT, 0, "S=MIN:EXP:MAX", S | B, CLI_SEC_ESTIMATE,
      "person-days for status S ({statuses})" },
    { "day-rate", OPT_DAY_RATE, 0, "N", S | M, CLI_SEC_ESTIMATE,
      "cost of a person-day; adds costs (all but sarif, junit, atc-precheck)" },
    { "currency", OPT_CURRENCY, 0, "C", S | M, CLI_SEC_ESTIMATE, "shown beside costs" },
    { "blocked-on", OPT_BLOCKED_ON, 0, "KINDS", S | M, CLI_SEC_HEADLINE,
      "what makes a model blocked (default: {blocked}); kinds as --fail-on takes them" },
    { "needs-work-on", OPT_NEEDS_WORK_ON, 0, "KINDS", S | M, CLI_SEC_HEADLINE,
      "what makes it need work (default: {needs_work}); coverage below 100% always does" },
    { "fail-on", OPT_FAIL_ON, 0, "KINDS", S | B | M, CLI_SEC_GATE,
      "what fails the gate (default: unmapped), comma-separated: {kinds}; effort: only "
      "--max-effort's budget; skipped: files found that are not models opmap reads; "
      "not-inlined: printed graphs whose calls hide operators; source-unscanned: Python "
      "files not scanned (it fails with any source kind)" },
    { "max-effort", OPT_MAX_EFFORT, 0, "DAYS", S | B | M, CLI_SEC_GATE,
      "fail when the estimate is over DAYS person-days" },
    { "waivers", OPT_WAIVERS, 0, "FILE", S | M, CLI_SEC_GATE,
      "accepted findings (opmap baseline writes one)" },
    { "owner", OPT_OWNER, 0, "NAME", B, CLI_SEC_WAIVERS,
      "owner written on each waiver (default: unassigned)" },
    { "expires", OPT_EXPIRES, 0, "DATE", B, CLI_SEC_WAIVERS,
      "YYYY-MM-DD (default: 90 days from today)" },
    { "reason", OPT_REASON, 0, "TEXT", B, CLI_SEC_WAIVERS, "reason written on each waiver" },
    { "files-from", OPT_FILES_FROM, 0, "LIST", S | B, CLI_SEC_OTHER,
      "also the paths in LIST, one per line (- for standard input)" },
    { "jobs", 'j', 'j', "N", S | B, CLI_SEC_OTHER, "scan N files at a time" },
    { "quiet", 'q', 'q', NULL, S | B | M, CLI_SEC_OTHER, "no progress on standard error" },
    { "help", 'h', 'h', NULL, S | B | M, CLI_SEC_OTHER, "this help" },
};
const size_t cli_n_options = sizeof(cli_options) / sizeof(cli_options[0]);

/* "a, b, c" of the finding kinds in bits (those --fail-on takes when all is 0). */
static void kind_list(unsigned bits, int all, char *buf, size_t size, size_t *used)
{
    unsigned k, first = 1;
    for (k = 0; k < OPMAP_FAIL_KIND_COUNT && *used < size; k++) {
        const char *name = opmap_fail_kind_name(k);
        unsigned parsed;
        opmap_error err;
        if (all ? opmap_fail_on_parse(name, &parsed, &err) != OPMAP_OK : !(bits & (1u << k)))
            continue;
        *used += (size_t)snprintf(buf + *used, size - *used, "%s%s", first ? "" : ", ", name);
        first = 0;
    }
    if (all && *used < size)
        *used += (size_t)snprintf(buf + *used, size - *used, ", all");
}

/* The report formats, then the statuses S= takes. */
static void word_list(int what, char *buf, size_t size, size_t *used)
{
    int i, n = what ? OPMAP_OP_STATUS_COUNT : OPMAP_REPORT_FORMAT_COUNT;
    for (i = what ? 1 : 0; i < n && *used < size; i++)
        *used += (size_t)snprintf(buf + *used, size - *used, "%s%s%s", i > (what ? 1 : 0) ? ", " : "",
                                  what ? opmap_op_status_name(i)
                                       : opmap_report_format_name((opmap_report_format)i),
                                  !what && i == 0 ? " (default)" : "");
    if (!what && *used < size)
        *used += (size_t)snprintf(buf + *used, size - *used, ", or all");
}

/* text with its {lists} expanded into buf. */
static void expand(const char *text, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    while (*text && used + 1 < size) {
        const char *close = *text == '{' ? strchr(text, '}') : NULL;
        size_t n = close ? (size_t)(close - text + 1) : 0;
        if (close && strncmp(text, "{reports}", n) == 0)
            word_list(0, buf, size, &used);
        else if (close && strncmp(text, "{statuses}", n) == 0)
            word_list(1, buf, size, &used);
        else if (close && strncmp(text, "{kinds}", n) == 0)
            kind_list(0, 1, buf, size, &used);
        else if (close && strncmp(text, "{blocked}", n) == 0)
            kind_list(OPMAP_HEADLINE_BLOCKED_ON, 0, buf, size, &used);
        else if (close && strncmp(text, "{needs_work}", n) == 0)
            kind_list(OPMAP_HEADLINE_NEEDS_WORK_ON, 0, buf, size, &used);
        else
            n = 0;
        if (!n) {
            buf[used++] = *text++;
            buf[used] = '\0';
        } else {
            text += n;
        }
    }
}

/* text wrapped at 79 columns, its first line after `lead` (padded to `indent`), the others
 * indented by `indent`. */
static void wrapped(FILE *f, const char *lead, size_t indent, const char *text)
{
    size_t col = (size_t)fprintf(f, "%s", lead);
    if (col && col >= indent) {
        fputc('\n', f);
        col = 0;
    }
    for (; col < indent; col++)
        fputc(' ', f);
    while (*text) {
        size_t word = strcspn(text, " ");
        if (col > indent && col + 1 + word > 79) {
            fputc('\n', f);
            for (col = 0; col < indent; col++)
                fputc(' ', f);
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        fwrite(text, 1, word, f);
        col += word;
        text += word;
        while (*text == ' ')
            text++;
    }
    fputc('\n', f);
}

/* One line per format a directory search reads, from the library's format registry:
 * "  onnx               ONNX models (.onnx)". */
static void formats_read(FILE *f)
{
    int id;
    fputs("formats read (a file named on the command line is read whatever its name):\n", f);
    for (id = 1; id < OPMAP_FORMAT_COUNT; id++) {
        opmap_format_info info = { .size = sizeof(info) };
        char lead[64], text[512];
        size_t used;
        const char *e;
        if (opmap_format_info_get((opmap_format)id, &info) != OPMAP_OK)
            continue;
        snprintf(lead, sizeof(lead), "  %s", info.name);
        used = (size_t)snprintf(text, sizeof(text), "%s (", info.title);
        for (e = info.extensions; *e && used < sizeof(text);) {
            size_t k = strcspn(e, " ");
            used += (size_t)snprintf(text + used, sizeof(text) - used, "%s%.*s",
                                     e == info.extensions ? "" : ", ", (int)k, e);
            e += k + (e[k] == ' ');
        }
        if (used < sizeof(text))
            snprintf(text + used, sizeof(text) - used, ")");
        wrapped(f, lead, 21, text);
    }
    fputc('\n', f);
}

void cli_usage(FILE *f, int cmd, const cli_command_help *h)
{
    char text[2048];
    size_t i;
    int sec, shown;
    fprintf(f, "usage: %s\n\n", h->synopsis);
    wrapped(f, "", 0, h->about);
    if (h->example)
        fputs(h->example, f);
    fputc('\n', f);
    if (h->formats)
        formats_read(f);
    for (sec = 0; sec < CLI_SEC_COUNT; sec++)
        for (i = 0, shown = 0; i < cli_n_options; i++) {
            const cli_option *o = &cli_options[i];
            char lead[64];
            if (o->section != sec || !(o->cmds & (1u << cmd)))
                continue;
            if (!shown++)
                fprintf(f, "%s:\n", sections[sec]);
            if (o->short_name)
                snprintf(lead, sizeof(lead), "  -%c, --%s%s%s", o->short_name, o->name,
                         o->arg ? " " : "", o->arg ? o->arg : "");
            else
                snprintf(lead, sizeof(lead), "  --%s%s%s", o->name, o->arg ? " " : "",
                         o->arg ? o->arg : "");
            expand(o->help, text, sizeof(text));
            wrapped(f, lead, 25, text);
        }
    fprintf(f, "\n%s", h->exits);
}

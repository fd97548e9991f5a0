/*
 * cli/cli_opts.c - parsing the options `opmap scan`, `opmap baseline` and `opmap merge`
 * share, from the option table (cli_help.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return !errno && end != s && !*end && *out >= 0 && *out < 1e12;
}

/* Person-days "2.5" -> 2500 thousandths; at most three decimals. */
static int parse_days(const char *s, uint64_t *out)
{
    double d;
    if (!parse_double(s, &d) || d > 1e9)
        return 0;
    *out = (uint64_t)(d * 1000.0 + 0.5);
    return 1;
}

/* --weight partial=0.5:0.8:1 (or partial=0.8 for all three). */
static int parse_weight(const char *arg, opmap_weights *w)
{
    static const char *const names[] = { "structural", "full", "partial", "rewrite", "unmapped" };
    const char *eq = strchr(arg, '=');
    char buf[128];
    uint64_t v[3];
    int status, n = 0;
    char *tok, *save = NULL;
    if (!eq || (size_t)(eq - arg) >= sizeof(buf) || strlen(eq + 1) >= sizeof(buf))
        return 0;
    for (status = 1; status < OPMAP_OP_STATUS_COUNT; status++)
        if (strlen(names[status]) == (size_t)(eq - arg) &&
            strncmp(names[status], arg, (size_t)(eq - arg)) == 0)
            break;
    if (status == OPMAP_OP_STATUS_COUNT)
        return 0;
    strcpy(buf, eq + 1);
    for (tok = strtok_r(buf, ":", &save); tok && n < 3; tok = strtok_r(NULL, ":", &save))
        if (!parse_days(tok, &v[n++]))
            return 0;
    if (tok || (n != 1 && n != 3))
        return 0;
    if (n == 1)
        v[1] = v[2] = v[0];
    if (v[0] > v[1] || v[1] > v[2])
        return 0;
    w->effort[status].min = v[0];
    w->effort[status].expected = v[1];
    w->effort[status].max = v[2];
    w->set |= 1u << status;
    return 1;
}

/* --format F[,F...]: names the library knows (opmap_report_format_parse), or all of them. */
static int parse_formats(const char *list, scan_opts *o)
{
    char buf[256], *tok, *save = NULL;
    size_t room = sizeof(o->formats) / sizeof(o->formats[0]);
    if (strlen(list) >= sizeof(buf))
        return 0;
    strcpy(buf, list);
    o->n_formats = 0;
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        opmap_report_format f;
        int all = strcmp(tok, "all") == 0, i;
        if (all && o->n_formats + OPMAP_REPORT_FORMAT_COUNT <= room) {
            for (i = 0; i < OPMAP_REPORT_FORMAT_COUNT; i++)
                o->formats[o->n_formats++] = (opmap_report_format)i;
            continue;
        }
        if (all || opmap_report_format_parse(tok, &f) != OPMAP_OK || o->n_formats == room) {
            char names[256];
            size_t used = 0;
            for (i = 0; i < OPMAP_REPORT_FORMAT_COUNT; i++)
                used += (size_t)snprintf(names + used, sizeof(names) - used, "%s, ",
                                         opmap_report_format_name((opmap_report_format)i));
            cli_fail("unknown format '%s' (expected %sall, or a comma-separated list)", tok,
                     names);
            return 0;
        }
        o->formats[o->n_formats++] = f;
    }
    return o->n_formats > 0;
}

/* The headline's rule (--blocked-on, --needs-work-on): kinds as --fail-on takes them; the
 * effort kind means nothing without a budget and is refused. */
static int parse_rule(const char *option, const char *arg, unsigned *out)
{
    opmap_error err;
    if (opmap_fail_on_parse(arg, out, &err) != OPMAP_OK) {
        cli_fail("%s: %s", option, err.message);
        return 0;
    }
    *out &= ~(unsigned)OPMAP_FAIL_EFFORT;
    if (!*out) {
        cli_fail("%s: give at least one kind (effort has no budget in the headline)", option);
        return 0;
    }
    return 1;
}

/*
 * scan, baseline and merge share one option table; an option that means nothing to the
 * command given is refused rather than silently ignored (a --waivers on baseline would
 * otherwise look as if it had been used; a --soc on merge as if it re-answered the reports).
 * Returns the first command the option belongs to, or -1 when it belongs to this one.
 */
static int belongs_elsewhere(int c, int cmd)
{
    size_t i;
    int k;
    for (i = 0; i < cli_n_options; i++) {
        if (cli_options[i].key != c && (!cli_options[i].short_name || cli_options[i].short_name != c))
            continue;
        if (cli_options[i].cmds & (1u << cmd))
            return -1;
        for (k = CLI_SCAN; k <= CLI_MERGE; k++)
            if (cli_options[i].cmds & (1u << k))
                return k;
    }
    return -1;
}

static const char *const cmd_names[] = { "scan", "baseline", "merge" };

/*
 * --torch-npu VERSION: checked here, so a typo is a usage error before any model is read.
 * --cann VERSION: refused, as the table cannot answer it (docs/cli.md).
 */
static int parse_version_option(int c, const char *arg, scan_opts *o)
{
    opmap_error err;
    int cmp;
    if (c == OPT_CANN) {
        cli_fail("--cann: the table has no per-operator CANN version ranges (its about.cann "
                 "names the one CANN line it speaks for), so opmap cannot answer for another "
                 "CANN version; --torch-npu VERSION answers for a torch_npu version");
        return 0;
    }
    if (opmap_torch_npu_compare(arg, arg, &cmp, &err) != OPMAP_OK) {
        cli_fail("--torch-npu: %s", err.message);
        return 0;
    }
    o->torch_npu = arg;
    return 1;
}

/* An option of two words (--mode eager|graph, --workload inference|training): *out 0 for
 * the first (the default), 1 for the second, as their enums number them; 0 on a usage
 * error, said. */
static int parse_choice(const char *opt, const char *arg, const char *first, const char *second,
                        int *out)
{
    if (strcmp(arg, first) != 0 && strcmp(arg, second) != 0) {
        cli_fail("%s: '%s' is not %s or %s", opt, arg, first, second);
        return 0;
    }
    *out = strcmp(arg, second) == 0;
    return 1;
}

int cli_parse_scan(int argc, char **argv, scan_opts *o, int cmd, const cli_command_help *help)
{
    struct option longopts[64];
    char shorts[32];
    size_t i, n_short = 0;
    opmap_error err;
    int c, li = -1, owner;
    /* getopt's tables, from the option table */
    for (i = 0; i < cli_n_options && i + 1 < sizeof(longopts) / sizeof(longopts[0]); i++) {
        const cli_option *x = &cli_options[i];
        longopts[i].name = x->name;
        longopts[i].has_arg = x->arg ? required_argument : no_argument;
        longopts[i].flag = NULL;
        longopts[i].val = x->key;
        if (x->short_name && n_short + 3 < sizeof(shorts)) {
            shorts[n_short++] = (char)x->short_name;
            if (x->arg)
                shorts[n_short++] = ':';
        }
    }
    memset(&longopts[i], 0, sizeof(longopts[i]));
    shorts[n_short] = '\0';
    memset(o, 0, sizeof(*o));
    o->formats[0] = OPMAP_REPORT_TEXT;
    o->n_formats = 1;
    o->jobs = 1;
    o->weights.version = OPMAP_WEIGHTS_VERSION;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, shorts, longopts, &li)) != -1) {
        if ((owner = belongs_elsewhere(c, cmd)) >= 0) {
            if (li >= 0)
                cli_fail("--%s is an option of `opmap %s`, not of `opmap %s`",
                         longopts[li].name, cmd_names[owner], cmd_names[cmd]);
            else
                cli_fail("-%c is an option of `opmap %s`, not of `opmap %s`", c,
                         cmd_names[owner], cmd_names[cmd]);
            cli_usage(stderr, cmd, help);
            return EXIT_USAGE;
        }
        li = -1;
        switch (c) {
        case OPT_TABLE: o->table = optarg; break;
        case OPT_SOC: o->soc = optarg; break;
        case 'o': o->output = optarg; break;
        case OPT_WAIVERS: o->waivers = optarg; break;
        case OPT_WEIGHTS: o->weights_file = optarg; break;
        case OPT_CURRENCY: o->currency = optarg; break;
        case OPT_OWNER: o->owner = optarg; break;
        case OPT_EXPIRES: o->expires = optarg; break;
        case OPT_REASON: o->reason = optarg; break;
        case OPT_FILES_FROM: o->files_from = optarg; break;
        case 'q': o->quiet = 1; break;
        case OPT_RESULTS:
            if (o->n_results == sizeof(o->results) / sizeof(o->results[0])) {
                cli_fail("--results: at most %zu files",
                         sizeof(o->results) / sizeof(o->results[0]));
                return EXIT_USAGE;
            }
            o->results[o->n_results++] = optarg;
            break;
        case OPT_FORMAT:
            if (!parse_formats(optarg, o))
                return EXIT_USAGE;
            break;
        case OPT_MODE:
            if (!parse_choice("--mode", optarg, "eager", "graph", &o->mode))
                return EXIT_USAGE;
            break;
        case OPT_WORKLOAD:
            if (!parse_choice("--workload", optarg, "inference", "training", &o->workload))
                return EXIT_USAGE;
            break;
        case OPT_TORCH_NPU:
        case OPT_CANN:
            if (!parse_version_option(c, optarg, o))
                return EXIT_USAGE;
            break;
        case OPT_FAIL_ON:
            if (opmap_fail_on_parse(optarg, &o->fail_on, &err) != OPMAP_OK) {
                cli_fail("--fail-on: %s", err.message);
                return EXIT_USAGE;
            }
            o->fail_on_given = 1;
            break;
        case OPT_BLOCKED_ON:
        case OPT_NEEDS_WORK_ON:
            if (!parse_rule(c == OPT_BLOCKED_ON ? "--blocked-on" : "--needs-work-on", optarg,
                            c == OPT_BLOCKED_ON ? &o->blocked_on : &o->needs_work_on))
                return EXIT_USAGE;
            break;
        case OPT_MAX_EFFORT:
            if (!parse_days(optarg, &o->max_effort) || !o->max_effort) {
                cli_fail("--max-effort: '%s' is not a positive number of person-days", optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_WEIGHT:
            if (!parse_weight(optarg, &o->weights)) {
                cli_fail("--weight: '%s' is not STATUS=DAYS or STATUS=MIN:EXPECTED:MAX "
                         "(status full, partial, rewrite or unmapped; min <= expected <= max)",
                         optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_DAY_RATE:
            if (!parse_double(optarg, &o->day_rate) || o->day_rate <= 0) {
                cli_fail("--day-rate: '%s' is not a positive number", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'j': {
            char *end;
            long j = strtol(optarg, &end, 10);
            if (*end || j < 1 || j > 256) {
                cli_fail("--jobs: '%s' is not a number from 1 to 256", optarg);
                return EXIT_USAGE;
            }
            o->jobs = (int)j;
            break;
        }
        case 'h':
            cli_usage(stdout, cmd, help);
            return -1;
        default:
            cli_fail("unknown or incomplete option '%s'", argv[optind - 1]);
            cli_usage(stderr, cmd, help);
            return EXIT_USAGE;
        }
    }
    if (optind >= argc && !o->files_from) {
        cli_fail(cmd == CLI_MERGE ? "give at least one JSON report"
                                  : "give at least one model file or directory");
        cli_usage(stderr, cmd, help);
        return EXIT_USAGE;
    }
    return 0;
}

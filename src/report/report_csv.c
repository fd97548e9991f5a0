/*
 * report/report_csv.c - one row per operator per model, for spreadsheets, and one per file
 * the scan did not read (status "unreadable" or "skipped"). Every text cell
 * is quoted, and cells a spreadsheet would evaluate as formulas are neutralised (escape.c).
 */
#include <inttypes.h>
#include <stdio.h>

#include "scan/result_internal.h"
#include "escape.h"
#include "report_internal.h"
#include "torch_npu_need.h"
#include "verified.h"

static void days(om_out *o, uint64_t milli)
{
    char buf[32];
    om_format_days(milli, buf, sizeof(buf));
    om_out_str(o, buf);
}

int om_report_csv(const om_report_in *in, om_out *o)
{
    size_t i, j, c;
    char step[1024];
    const opmap_result *r0 = in->count ? in->results[0] : NULL;
    int verified = om_report_verified(in); /* a last column, with device results */
    int training = om_report_workload(in) == OPMAP_WORKLOAD_TRAINING; /* two more before it */
    size_t cells = 6 + (r0 ? r0->n_chips : 0) + 4 + (in->day_rate > 0) + 8 + 3 + verified;
    om_out_str(o, "verdict,coverage,model,domain,op_type,opset,since_version,status");
    for (c = 0; r0 && c < r0->n_chips; c++) {
        om_out_str(o, ",");
        om_out_csv(o, r0->chips[c]);
    }
    om_out_str(o, ",instances,effort_min,effort_expected,effort_max");
    if (in->day_rate > 0)
        om_out_str(o, ",cost_expected");
    om_out_str(o, ",flags,unpublished,ascend_op,becomes,engine,reasons,hint,first_node,"
                  "torch_npu_target,model_torch_npu_min,mode");
    if (training)
        om_out_str(o, ",workload,backward");
    om_out_str(o, verified ? ",verified\r\n" : "\r\n");
    /* the overall headline first (docs/reports.md): verdict and coverage, no other cell */
    om_out_printf(o, "%s,", om_readiness_label(in->overall.readiness));
    days(o, in->overall.coverage);
    for (c = 0; c < cells; c++)
        om_out_str(o, ",");
    om_out_str(o, "\r\n");
    for (i = 0; i < in->count; i++) {
        const opmap_result *r = in->results[i];
        for (j = 0; j < r->n_ops; j++) {
            const opmap_op *op = r->ops[j];
            unsigned f;
            size_t k;
            int first = 1;
            om_out_printf(o, "%s,", om_readiness_label(in->headlines[i].readiness));
            days(o, in->headlines[i].coverage);
            om_out_str(o, ",");
            om_out_csv(o, r->model_name);
            om_out_str(o, ",");
            om_out_csv(o, op->domain);
            om_out_str(o, ",");
            om_out_csv(o, op->name);
            om_out_printf(o, ",%" PRId64 ",", op->opset);
            if (op->since)
                om_out_printf(o, "%" PRId64, op->since);
            om_out_printf(o, ",%s", opmap_op_status_name(op->status));
            for (c = 0; c < r->n_chips; c++)
                om_out_printf(o, ",%s", op->chip_unknown[c] ? "unpublished"
                                                            : opmap_op_status_name(op->chip_status[c]));
            om_out_printf(o, ",%" PRIu64 ",", op->instances);
            days(o, op->effort.min);
            om_out_str(o, ",");
            days(o, op->effort.expected);
            om_out_str(o, ",");
            days(o, op->effort.max);
            if (in->day_rate > 0) {
                char amount[64];
                om_format_amount(om_cost(in, op->effort.expected), amount, sizeof(amount));
                om_out_printf(o, ",%s", amount);
            }
            om_out_str(o, ",\"");
            for (f = 0; f < OPMAP_FLAG_COUNT; f++)
                if (op->flags & (1u << f)) {
                    om_out_printf(o, "%s%s", first ? "" : " ", opmap_flag_name(f));
                    first = 0;
                }
            om_out_printf(o, "\",%s,", op->unpublished ? "yes" : "no");
            om_out_csv(o, op->ascend_op);
            om_out_str(o, ",");
            om_out_csv(o, in->view->models[i].ops[j].on_ascend);
            om_out_str(o, ",");
            om_out_csv(o, in->view->models[i].ops[j].engine);
            om_out_str(o, ",\"");
            for (k = 0; k < op->n_reasons; k++) {
                /* the cell is already open: double the quotes of each piece by hand */
                const char *parts[3] = { op->reasons[k].message, " [", op->reasons[k].actual };
                size_t q;
                om_out_str(o, k ? "; " : "");
                for (q = 0; q < 3; q++) {
                    const char *s = parts[q];
                    if (k == 0 && q == 0 && (*s == '=' || *s == '+' || *s == '-' || *s == '@'))
                        om_out_str(o, "'");
                    for (; *s; s++)
                        om_out_bytes(o, *s == '"' ? "\"\"" : s, *s == '"' ? 2 : 1);
                }
                om_out_str(o, "]");
            }
            om_out_str(o, "\",");
            om_out_csv(o, in->view->models[i].ops[j].next_step ? in->view->models[i].ops[j].next_step
                                                                 : op->hint);
            om_out_str(o, ",");
            om_out_csv(o, op->n_paths ? op->paths[0] : "");
            om_out_str(o, ",");
            om_out_csv(o, r->tnpu_target);
            om_out_str(o, ",");
            om_out_csv(o, r->tnpu_needed);
            om_out_str(o, ",");
            om_out_str(o, opmap_mode_name(r->mode));
            if (training) {
                om_out_str(o, ",");
                om_out_str(o, opmap_workload_name(r->workload));
                om_out_str(o, ",");
                om_out_csv(o, op->bw_status ? op->bw_status : "");
            }
            if (verified) {
                om_verify_summary(op, step, sizeof(step));
                om_out_str(o, ",");
                om_out_csv(o, step);
            }
            om_out_str(o, "\r\n");
        }
    }
    /* files not read: a row each, status "unreadable" or "skipped", the reason its only cell */
    for (i = 0; i < in->n_problems; i++) {
        const opmap_file_problem *p = &in->problems[i];
        char msg[1200];
        size_t empty = (r0 ? r0->n_chips : 0) + 4 + (in->day_rate > 0) + 5;
        om_problem_message(p, msg, sizeof(msg));
        om_out_str(o, ",,"); /* a file not read has no verdict of its own */
        om_out_csv(o, p->file ? p->file : "");
        om_out_printf(o, ",,,,,%s", p->skipped ? "skipped" : "unreadable");
        for (c = 0; c < empty; c++)
            om_out_str(o, ",");
        om_out_str(o, ",");
        om_out_csv(o, msg);
        /* hint, first_node, torch_npu_target, model_torch_npu_min, mode (then workload and
         * backward, verified): as wide as the rest */
        om_out_str(o, ",,,,,");
        om_out_str(o, training ? ",," : "");
        om_out_str(o, verified ? ",\r\n" : "\r\n");
    }
    return OPMAP_OK;
}

/*
 * report/torch_npu_need.c - the newest of the models' minimum torch_npu lines, and the mode
 * the models were answered for.
 */
#include "scan/result_internal.h"
#include "table/npu_version.h"
#include "torch_npu_need.h"

const opmap_result *om_report_tnpu_needed(const om_report_in *in)
{
    const opmap_result *best = NULL;
    om_npu_version b, v;
    size_t i;
    for (i = 0; i < in->count; i++) {
        const opmap_result *r = in->results[i];
        if (!r->tnpu_needed || !r->tnpu_needed[0] ||
            om_npu_version_parse(r->tnpu_needed, &v, NULL, 0))
            continue;
        if (!best || om_npu_version_cmp(&v, &b) > 0) {
            best = r;
            b = v;
        }
    }
    return best;
}

int om_report_mode(const om_report_in *in)
{
    return in->count ? in->results[0]->mode : OPMAP_MODE_EAGER;
}

int om_report_workload(const om_report_in *in)
{
    /* the one asked for: an ONNX model of a training scan was answered for inference */
    return in->count && (in->results[0]->workload == OPMAP_WORKLOAD_TRAINING ||
                         in->results[0]->workload_narrowed)
               ? OPMAP_WORKLOAD_TRAINING
               : OPMAP_WORKLOAD_INFERENCE;
}

const char om_report_training_text[] =
    "training (each ATen operator's backward is answered too; fused-kernel advice names only "
    "kernels with a backward)";

const char om_report_graph_mode_text[] =
    "graph (torch.compile with torchair: each ATen operator also needs a torchair GE converter "
    "that does not raise)";

const char *om_report_tnpu_target(const om_report_in *in)
{
    return in->count && in->results[0]->tnpu_target ? in->results[0]->tnpu_target : "";
}

void om_report_tnpu_members(jsonw *w, const om_report_in *in)
{
    const opmap_result *need = om_report_tnpu_needed(in);
    jw_kstring(w, "target", om_report_tnpu_target(in));
    jw_kstring(w, "needed", need ? need->tnpu_needed : "");
    jw_kstring(w, "needed_by", need ? need->tnpu_needed_by : "");
    jw_kstring(w, "needed_by_model", need ? need->model_name : "");
}

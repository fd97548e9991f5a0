/*
 * report/torch_npu_need.h - the torch_npu line a set of models needs, computed when a
 * report is written from what each result holds (opmap_result_torch_npu_needed), and
 * the mode they were answered for (opmap_result_mode).
 */
#ifndef OM_TORCH_NPU_NEED_H
#define OM_TORCH_NPU_NEED_H

#include "jsonw.h"
#include "report_internal.h"

/* The result whose minimum torch_npu line is the newest (the first such in report order),
 * or NULL when no model has one. */
const opmap_result *om_report_tnpu_needed(const om_report_in *in);

/* The torch_npu version the results were answered for ("" when none). */
const char *om_report_tnpu_target(const om_report_in *in);

/* The mode the results were answered for (opmap_result_mode; all alike, merge refuses a
 * mix), OPMAP_MODE_EAGER when there is none. */
int om_report_mode(const om_report_in *in);
/* The workload the scans were asked for (every result's: one run), an opmap_workload. */
int om_report_workload(const om_report_in *in);

/* "graph (torch.compile with torchair: ...)": the human formats' words after "mode". */
extern const char om_report_graph_mode_text[];
/* What a training scan answers, for the reports that say so. */
extern const char om_report_training_text[];

/* The members "target", "needed", "needed_by", "needed_by_model" into the JSON object being
 * written (the JSON report's top-level torch_npu, SARIF's invocation properties). */
void om_report_tnpu_members(jsonw *w, const om_report_in *in);

#endif /* OM_TORCH_NPU_NEED_H */

/*
 * scan/scan_internal.h - the parts of opmap_scan() that live in their own files.
 */
#ifndef OM_SCAN_INTERNAL_H
#define OM_SCAN_INTERNAL_H

#include "../walker/walker.h"
#include "result_internal.h"

/* model_copy.c: the model facts a result keeps (ENOMEM on failure). */
int om_scan_copy_model(opmap_result *res, const ir_model *m);

/* risks.c: model-level risks (ENOMEM on failure). */
int om_risks_model(opmap_result *res);                      /* from the graph inputs */
int om_risks_instance(opmap_result *res, const opmap_op *op, const om_visit *v);
int om_risks_flags(opmap_result *res);                       /* from operators' flags */

#endif /* OM_SCAN_INTERNAL_H */

/*
 * readers/torchscript/root_module.h - the archive's root module: the object data.pkl
 * builds.
 *
 * torch.jit.load unpickles data.pkl and wraps the object left on the stack as the module;
 * its class, defined in code/, is the model. ts_root_class runs data.pkl as torch 1.13's
 * unpickler does (torch/csrc/jit/serialization/unpickler.cpp): only its opcodes, PROTO 2
 * first; GLOBAL pushes an index into a table of functions that BUILD and REDUCE apply
 * (NEWOBJ only drops its argument), a class's function making an object of that class;
 * STOP must leave exactly one value. The root is that value's class, or the read fails
 * where torch's would fail on the way to it. Nothing is called; of containers only what a
 * dict holds under a string key as an object is kept (attributes in an object's state),
 * stack, memo, marks and that record are bounded.
 */
#ifndef OM_TS_CONTAINER_ROOT_MODULE_H
#define OM_TS_CONTAINER_ROOT_MODULE_H

#include <stddef.h>

#include "readers/torchscript/lang/syntax.h"

/* The class of the object data.pkl (entry `entry`) builds, from `prog`; errors name the
 * entry and the pickle offset. What objects hold under string keys of their state dicts
 * (attribute name -> an object of a class of code/) goes to prog->held: what a call through
 * an interface type can reach. */
int ts_root_class(ts_ctx *c, tsl_program *prog, const char *entry, const unsigned char *data,
                   size_t len, tsl_class **root);

#endif /* OM_TS_CONTAINER_ROOT_MODULE_H */

/*
 * readers/torchscript/jit/kinds.h - printed forms of TorchScript code and the node kinds
 * they stand for.
 *
 * `torch.NAME(...)` is aten::NAME and `ops.NS.NAME(...)` is NS::NAME; the printer writes a
 * few ATen operators as Python builtins (`int(x)` is aten::Int, `annotate(int, x)` is
 * aten::IntImplicit, ...). This table also knows which kinds the optimizer must treat
 * specially: side effects, in-place mutation, and the kinds its passes match.
 */
#ifndef OM_TS_JIT_KINDS_H
#define OM_TS_JIT_KINDS_H

/* The TSJ_KIND_* kind of ns::op (TSJ_KIND_OTHER when the passes do not care). */
int tsj_kind_lookup(const char *ns, const char *op);

/* An ATen alias torch normalizes at load (aten::multiply -> "mul"), or `op` itself. */
const char *tsj_canon_op(const char *op);

/* Builtin call names printed for ATen kinds: int/float/bool/str/complex/len. The op name
 * ("Int", "Float", ...) or NULL. */
const char *tsj_builtin_op(const char *name);

/* Side effects (Node::hasSideEffects) by kind. */
int tsj_kind_side_effects(const char *ns, const char *op);

/* Schema-mutable ops: in-place ATen ops (`relu_`) and list/dict mutators (`append`). */
int tsj_kind_mutable(const char *ns, const char *op);

/* Tensor factories and other ops whose result is a fresh tensor even from scalar inputs. */
int tsj_kind_fresh_tensor(const char *op);

/* Ops whose output may alias their first input (views, in-place ops). */
int tsj_kind_view(const char *op);

#endif /* OM_TS_JIT_KINDS_H */

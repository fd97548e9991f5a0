class ControlFlowNet(Module):
  __parameters__ = []
  __buffers__ = ["offset", ]
  offset : Tensor
  training : bool
  _is_full_backward_hook : Optional[bool]
  scale : float
  first : __torch__.Block
  second : __torch__.___torch_mangle_1.Block
  blocks : __torch__.torch.nn.modules.container.ModuleList
  seq : __torch__.torch.nn.modules.container.Sequential
  depth : Final[int] = 3
  def forward(self: __torch__.ControlFlowNet,
    x: Tensor,
    n: int=3,
    bias: Optional[Tensor]=None) -> Tuple[Tensor, int, float]:
    _0 = uninitialized(int)
    if torch.ne(torch.dim(x), 2):
      _1 = torch.format("expected a 2-D input, got {} dims", torch.dim(x))
      ops.prim.RaiseException(_1, "builtins.ValueError")
    else:
      pass
    if torch.gt(n, 0):
      reps = torch.mul(n, 2)
    else:
      ops.prim.RaiseException("n must be positive", "builtins.RuntimeError")
      reps = _0
    first = self.first
    x0 = (first).forward(x, )
    if bool(torch.gt(torch.sum(x0), 0)):
      x1 = torch.add(x0, 1)
    else:
      x1 = torch.sub(x0, 1)
    second = self.second
    x2 = (second).forward(x1, )
    x3 = x2
    for i in range(reps):
      _2 = torch.eq(torch.remainder(i, 2), 0)
      if _2:
        x4 = torch.mul(x3, 2)
      else:
        x4 = torch.sigmoid(x3)
      x3 = x4
    _3 = torch.gt(float(torch.max(torch.abs(x3))), 1.)
    x5 = x3
    steps = 0
    _4 = _3
    while _4:
      x6 = torch.div(x5, 2)
      steps0 = torch.add(steps, 1)
      if torch.lt(steps0, 3):
        _6 = torch.gt(float(torch.max(torch.abs(x6))), 1.)
        _5 = _6
      else:
        _5 = False
      _4, x5, steps = _5, x6, steps0
    blocks = self.blocks
    _00 = getattr(blocks, "0")
    _10 = getattr(blocks, "1")
    _20 = getattr(blocks, "2")
    x7 = (_00).forward(x5, )
    x8 = (_10).forward(x7, )
    x9 = (_20).forward(x8, )
    seq = self.seq
    _11 = getattr(seq, "1")
    x10 = (_11).forward(x9, )
    x11 = (self).helper(x10, steps, )
    x12 = __torch__.clamp_positive(x11, -10., )
    if torch.__isnot__(bias, None):
      bias1 = unchecked_cast(Tensor, bias)
      bias0, x13 = bias1, torch.add(x12, bias1)
    else:
      bias0, x13 = bias, x12
    if torch.__is__(bias0, None):
      offset = self.offset
      _7 = torch.add_(x13, offset)
    else:
      pass
    batch = torch.size(x13, 0)
    width = (torch.size(x13))[1]
    dims = [batch, width]
    _8 = torch.append(dims, torch.len(dims))
    doubled = annotate(List[int], [])
    for _9 in range(torch.len(dims)):
      d = dims[_9]
      _12 = torch.append(doubled, torch.mul(d, 2))
    _13 = torch.add(torch.mul(dims[0], doubled[1]), torch.len(dims))
    total = torch.sub(_13, torch.floordiv(dims[-1], 2))
    positive = bool(torch.gt(torch.mean(x13), 0))
    if positive:
      total0 = torch.add(total, 1)
    else:
      total0 = total
    counts = {"total": total0}
    total1 = torch.add(counts["total"], int(torch.argmax(x13)))
    d0 = torch.to(x13, 7)
    ratio = torch.div(float(torch.sum(d0)), float(total1))
    empty = annotate(List[int], [])
    if torch.eq(torch.len(empty), 0):
      pass
    else:
      ops.prim.RaiseException("AssertionError: empty list")
    return (x13, total1, ratio)
  def helper(self: __torch__.ControlFlowNet,
    x: Tensor,
    k: int) -> Tensor:
    _12 = torch.mul(x, float(k))
    scale = self.scale
    return torch.add(_12, scale)
class Block(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  lin : __torch__.torch.nn.modules.linear.Linear
  norm : __torch__.torch.nn.modules.normalization.LayerNorm
  def forward(self: __torch__.Block,
    x: Tensor) -> Tensor:
    norm = self.norm
    lin = self.lin
    _13 = (norm).forward((lin).forward(x, ), )
    return torch.relu(_13)
def clamp_positive(x: Tensor,
    lo: float) -> Tensor:
  return torch.clamp(x, lo)

class SwinTransformerBlock(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  norm1 : __torch__.torch.nn.modules.normalization.___torch_mangle_78.LayerNorm
  attn : __torch__.torchvision.models.swin_transformer.___torch_mangle_81.ShiftedWindowAttention
  stochastic_depth : __torch__.torchvision.ops.stochastic_depth.___torch_mangle_82.StochasticDepth
  norm2 : __torch__.torch.nn.modules.normalization.___torch_mangle_83.LayerNorm
  mlp : __torch__.torchvision.ops.misc.___torch_mangle_89.MLP
  def forward(self: __torch__.torchvision.models.swin_transformer.___torch_mangle_90.SwinTransformerBlock,
    argument_1: Tensor) -> Tensor:
    mlp = self.mlp
    norm2 = self.norm2
    stochastic_depth = self.stochastic_depth
    attn = self.attn
    norm1 = self.norm1
    _0 = (attn).forward((norm1).forward(argument_1, ), )
    _1 = (stochastic_depth).forward()
    input = torch.add(argument_1, _0)
    _2 = (mlp).forward((norm2).forward(input, ), )
    _3 = (stochastic_depth).forward1()
    return torch.add(input, _2)

class BasicConv2d(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  conv : __torch__.torch.nn.modules.conv.___torch_mangle_172.Conv2d
  bn : __torch__.torch.nn.modules.batchnorm.___torch_mangle_173.BatchNorm2d
  def forward(self: __torch__.torchvision.models.inception.___torch_mangle_174.BasicConv2d,
    argument_1: Tensor) -> Tensor:
    bn = self.bn
    conv = self.conv
    _0 = (bn).forward((conv).forward(argument_1, ), )
    return torch.relu_(_0)

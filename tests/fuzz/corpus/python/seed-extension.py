from torch.utils.cpp_extension import CUDAExtension, load_inline, BuildExtension
from setuptools import setup
import flash_attn, xformers.ops as xops
from bitsandbytes import *
setup(name='k', ext_modules=[CUDAExtension('k', ['k.cpp', 'k_kernel.cu'])],
      cmdclass={'build_ext': BuildExtension})
mod = load_inline(name="m", cpp_sources=[""], cuda_sources=["__global__ void f(){}"])

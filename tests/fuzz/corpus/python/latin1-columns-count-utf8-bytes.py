#s decoding=latin]3aice(1nÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿÿ  iice,oding=latin]1aice(1)max_.ng?nDP on CUDA)."""
impor.üüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüüü"""Training entry point (DDP on CUDA)."""
import os
import torch as T
import tdüüüüüüüüüüüüüüüüüüüüüüüüüühr.ü
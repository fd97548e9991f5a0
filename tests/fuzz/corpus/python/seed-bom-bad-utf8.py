import torch
	x = torch.cuda.mem_get_info()
 y = "Ã("

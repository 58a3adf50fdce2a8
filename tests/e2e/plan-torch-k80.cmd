# The newest PyTorch for driver 470.82 and a Tesla K80: 1.12.1 cu113 with the toolkit's own
# driver, 2.7 cu118 through minor version compatibility, nothing later for compute capability 3.7.
arg plan
arg torch
arg --driver
arg 470.82
arg --gpu
arg Tesla K80
exit 0

# A GPU model: its compute capability, the CUDA toolkits and framework builds whose CUDA can
# compile for it (described machine: Linux, nothing else).
arg compat
arg Tesla K80
arg --os
arg linux
exit 0

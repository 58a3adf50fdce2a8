# JAX's current CUDA plugins on driver 550.54.14 with an H100: CUDA 12's runs (>= 525,
# SM 5.2+), CUDA 13's needs 580.
arg compat
arg jax
arg --driver
arg 550.54.14
arg --gpu
arg NVIDIA H100 80GB HBM3
exit 0

# JAX on driver 580.65.06 with compute capability 8.0: both current plugins run.
arg plan
arg jax
arg --driver
arg 580.65.06
arg --cc
arg 8.0
exit 0

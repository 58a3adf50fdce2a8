# One wheel: torch 2.1.0+cu121 on driver 535.104.05 and an RTX 3090.
arg compat
arg torch==2.1.0+cu121
arg --driver
arg 535.104.05
arg --gpu
arg NVIDIA GeForce RTX 3090
exit 0

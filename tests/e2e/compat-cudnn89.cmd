# cuDNN 8.9: the packages of 8.9.5 and 8.9.6, on driver 470.82.01 with a V100.
arg compat
arg cudnn==8.9
arg --driver
arg 470.82.01
arg --gpu
arg Tesla V100-SXM2-16GB
exit 0

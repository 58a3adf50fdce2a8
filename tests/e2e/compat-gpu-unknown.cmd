# A GPU model the gpus table does not have: cannot tell (3).
arg compat
arg GeForce RTX 3080
arg --os
arg linux
exit 3

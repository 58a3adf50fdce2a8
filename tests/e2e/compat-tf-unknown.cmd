# A release the knowledge base does not have: cannot tell (3).
arg compat
arg tensorflow==3.0
arg --driver
arg 550.54.14
arg --cc
arg 8.6
exit 3

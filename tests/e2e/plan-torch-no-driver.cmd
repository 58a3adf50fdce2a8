# No driver given: nothing can be chosen; what each release needs (3).
arg plan
arg torch
arg --cc
arg 8.6
exit 3

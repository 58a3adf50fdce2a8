# The same plan as JSON.
arg plan
arg torch
arg --driver
arg 470.82
arg --gpu
arg Tesla K80
arg --json
exit 0
json

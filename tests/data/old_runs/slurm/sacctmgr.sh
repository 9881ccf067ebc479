#!/bin/sh
# QOS priorities of the owner's user groups, tuned by schedlab evolve slurm (see slurm.conf.fragment).
# User group k runs under QOS ugk, the DefaultQOS of its account; the simulation named user group k's
# account k: put your site's account of that group in its place. PriorityWeightQOS weighs the QOS
# factor = a QOS's priority / the highest QOS priority (priority_multifactor.shtml).
set -e
sacctmgr -n -P show qos ug1 format=name | grep -qx ug1 || sacctmgr -i add qos ug1
sacctmgr -i modify qos where name=ug1 set priority=947
sacctmgr -i modify account where name=1 set qos+=ug1 defaultqos=ug1
sacctmgr -n -P show qos ug2 format=name | grep -qx ug2 || sacctmgr -i add qos ug2
sacctmgr -i modify qos where name=ug2 set priority=23
sacctmgr -i modify account where name=2 set qos+=ug2 defaultqos=ug2
sacctmgr -n -P show qos ug3 format=name | grep -qx ug3 || sacctmgr -i add qos ug3
sacctmgr -i modify qos where name=ug3 set priority=56
sacctmgr -i modify account where name=3 set qos+=ug3 defaultqos=ug3
sacctmgr -n -P show qos ug4 format=name | grep -qx ug4 || sacctmgr -i add qos ug4
sacctmgr -i modify qos where name=ug4 set priority=36
sacctmgr -i modify account where name=4 set qos+=ug4 defaultqos=ug4
sacctmgr -n -P show qos ug5 format=name | grep -qx ug5 || sacctmgr -i add qos ug5
sacctmgr -i modify qos where name=ug5 set priority=150
sacctmgr -i modify account where name=5 set qos+=ug5 defaultqos=ug5

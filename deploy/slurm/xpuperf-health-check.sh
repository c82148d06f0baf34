#!/bin/sh
# Slurm's HealthCheckProgram (slurm.conf):
#   HealthCheckProgram=/usr/lib/xpuperf/xpuperf-health-check.sh
#   HealthCheckInterval=300
#   HealthCheckNodeState=ANY
# slurmd runs it as root on every node. A failing verdict that needs the node out of service
# (docs/HEALTH.md: reset_device, drain_node, replace_device) drains the node with
# "xpuperf: <device> <code> (<action>)" as the reason; running jobs keep running. Once every
# verdict passes again, a node xpuperf drained is resumed (--resume); a node drained by anyone
# else is never touched. Set XPUPERF_EXPECT to the node's accelerator count to fail on a missing
# one. The verdicts go to the log below.
expect=${XPUPERF_EXPECT:+--expect $XPUPERF_EXPECT}
# shellcheck disable=SC2086
exec /usr/bin/xpuperf health --drain --resume --node "${SLURMD_NODENAME:-$(hostname -s)}" \
  $expect >>/var/log/xpuperf-health.log 2>&1

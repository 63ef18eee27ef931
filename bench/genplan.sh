#!/bin/sh
# genplan.sh N: a valid plan of N one-unit GPU nodes, one entry per node
# (no ranges: the parser must really read every node), 20 nodes a rack.
set -eu
n=$1
awk -v n="$n" 'BEGIN {
	racks = int((n + 19) / 20)
	print "version: 1"
	print "cluster: { name: bench, domain: bench.internal, workload: inference }"
	print "hardware:"
	print "  gpu-node:"
	print "    system: dell-r650"
	print "    cpu: { model: xeon-8380, count: 2 }"
	print "    memory_gb: 256"
	print "    gpus: { model: l4, count: 2 }"
	print "    nics:"
	print "      - { model: onboard-1gbe, count: 2, network: mgmt }"
	print "    psu: { count: 2, watts: 1400, redundancy: \"N+1\" }"
	print "racks:"
	# Racks of one kind share an anchor, as a user would write them.
	for (r = 1; r <= racks; r++) {
		if (r > 1) { printf "  r%05d: *rack\n", r; continue }
		printf "  r%05d: &rack { units: 42, depth_mm: 1200, cooling_kw: 40, pdus: [ { volts: 208, amps: 60, phases: 3, feed: A }, { volts: 208, amps: 60, phases: 3, feed: A }, { volts: 208, amps: 60, phases: 3, feed: B }, { volts: 208, amps: 60, phases: 3, feed: B } ] }\n", r
	}
	print "networks:"
	print "  mgmt: { cidr: 10.0.0.0/8, kind: ethernet, gbps: 1, role: management }"
	print "nodes:"
	for (i = 0; i < n; i++) {
		printf "  - { name: n%07d, role: worker, hardware: gpu-node, rack: r%05d, u: %d, address: 10.%d.%d.%d }\n", i, int(i / 20) + 1, (i % 20) * 2 + 1, int(i / 65536) % 256, int(i / 256) % 256, i % 256 + 0
	}
}'

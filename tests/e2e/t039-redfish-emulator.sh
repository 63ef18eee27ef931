#!/bin/sh
# The Redfish emulator that the bmc tests run against proves itself first:
# a wrong emulator would make every bmc test meaningless.
cd "$(dirname "$0")/../.." || exit 1
exec bash tests/redfish/test_emulator.sh

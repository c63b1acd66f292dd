#!/bin/sh
echo "The unit tests need the Check library (Debian: apt-get install check), then re-run ./configure." >&2
exit 1

#!/bin/sh
# Set LOG_PAYLOAD_FILE to choose where the payload is written.
cat > "${LOG_PAYLOAD_FILE:-/tmp/pool-hook-payload.json}"

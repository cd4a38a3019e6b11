#!/bin/sh
# Builds the broker's password file from the environment, then runs mosquitto. Passwords are
# hashed by mosquitto_passwd; the file lives on the data volume, readable by mosquitto only.
set -eu
: "${MQTT_INGEST_PASSWORD:?set MQTT_INGEST_PASSWORD}"
: "${MQTT_PASSWORD_VIRTUAL:?set MQTT_PASSWORD_VIRTUAL}"

umask 077
passwd=/mosquitto/data/passwd
rm -f "$passwd"
mosquitto_passwd -c -b "$passwd" ingest "$MQTT_INGEST_PASSWORD"
mosquitto_passwd -b "$passwd" virtual "$MQTT_PASSWORD_VIRTUAL"
chown -R mosquitto:mosquitto /mosquitto/data
exec mosquitto -c /mosquitto/config/mosquitto.conf

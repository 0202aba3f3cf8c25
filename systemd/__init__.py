"""systemd unit files for `recalld serve`, shipped as package data (see `recalld service install`)."""

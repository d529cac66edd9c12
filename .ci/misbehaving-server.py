"""A loopback HTTP server that misbehaves, for the Example's error paths.

usage: python3 misbehaving-server.py silent|close PORTFILE
  silent  accepts connections and reads the request, but never answers
  close   accepts connections, reads the request and closes the connection without a word
Writes the port it listens on to PORTFILE once it is ready, then serves until killed.
"""
import socket
import sys
import threading

mode, port_file = sys.argv[1], sys.argv[2]
listener = socket.socket()
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind(("127.0.0.1", 0))
listener.listen(16)
with open(port_file, "w") as f:
    f.write(str(listener.getsockname()[1]))

held = []


def serve(connection):
    try:
        connection.recv(65536)
    except OSError:
        pass
    if mode == "close":
        connection.close()
    else:
        held.append(connection)  # keep it open, say nothing


while True:
    connection, _ = listener.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()

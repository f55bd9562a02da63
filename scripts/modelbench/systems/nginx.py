"""nginx: nginx 1.22 answering /hello itself (servers/nginx/behind-nginx --nginx-hello), the
reference for what a connection costs a server doing nothing else; E2's proxy (behind_nginx)."""

from modelbench.systems.base import FRONT, System, first_line

SYSTEM = System(
    name="nginx", title="nginx's own /hello", side="async", real=True, port=8085,
    needs=("nginx",), launcher=lambda checkout: [checkout.real_system(*FRONT), "--nginx-hello"],
    files_flag="--dir", endpoints=("/hello",),
    version=lambda checkout: first_line(["/usr/sbin/nginx", "-v"], "nginx"))

"""fpm: E2's nginx in front of PHP-FPM 8.2 (servers/php/fpm-server, its flags: docs/real-systems.md)
on the same PHP pages as php, FPM on a TCP port as the post ran it."""

from modelbench.systems.base import System, first_line

SYSTEM = System(
    name="fpm", title="nginx + PHP-FPM", side="blocking", real=True, port=8086,
    needs=("fpm", "nginx", "db"), files_flag="--dir",
    launcher=lambda checkout: [checkout.real_system("php", "fpm-server")],
    version=lambda checkout: f"{first_line(['/usr/sbin/nginx', '-v'], 'nginx')} in front of "
                             f"{first_line(['php-fpm8.2', '-v'], 'PHP')}")

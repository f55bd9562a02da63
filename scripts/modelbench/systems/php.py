"""php: the real Apache 2.4 with mpm_prefork and mod_php serving the posts' PHP pages
(servers/php/apache-server, a private instance under var/). Its children are processes of the
launcher's tree, so their CPU is the tree's; it has no /status."""

from modelbench.systems.base import System, apache_version, first_line

SYSTEM = System(
    name="php", title="Apache+PHP", side="blocking", real=True, port=8083, needs=("php", "db"),
    launcher=lambda checkout: [checkout.real_system("php", "apache-server")],
    standalone=lambda checkout, n: ["php", checkout.real_system("php", "html_cli.php"), str(n)],
    files_flag="--dir",
    version=lambda checkout: f"{apache_version()} prefork with mod_php, "
                             f"{first_line(['php', '-v'])}")

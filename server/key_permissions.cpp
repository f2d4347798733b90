#include "server/key_permissions.h"

#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <linux/magic.h>

namespace foothold::server {

namespace {

bool under(const std::string& path, const std::string& dir) { return path.compare(0, dir.size(), dir) == 0; }

bool in_secrets_mount(const std::string& path) {
  char resolved[PATH_MAX];
  const std::string real = realpath(path.c_str(), resolved) ? std::string(resolved) : path;
  if (under(real, "/run/secrets/") || under(real, "/var/run/secrets/")) return true;
  struct statfs fs {};
  struct statvfs vfs {};
  return statfs(real.c_str(), &fs) == 0 && fs.f_type == TMPFS_MAGIC && statvfs(real.c_str(), &vfs) == 0 &&
         (vfs.f_flag & ST_RDONLY) != 0;
}

}  // namespace

std::string key_file_exposure(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return "its permissions cannot be read";
  const bool group = (st.st_mode & S_IRGRP) != 0, others = (st.st_mode & S_IROTH) != 0;
  if ((!group && !others) || in_secrets_mount(path)) return "";
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", unsigned(st.st_mode & 07777));
  return std::string("mode ") + mode + ": readable by " + (group && others ? "group and others" : group ? "group" : "others");
}

}  // namespace foothold::server

#include "identity/setting_source.hpp"

extern "C" {
#include "utils/guc_tables.h"
}

namespace locality_pg {
namespace {

// The setting's record: find_option is exported from PostgreSQL 16 on;
// before, the records are searched by name.
config_generic *find_setting(const char *name) {
#if PG_VERSION_NUM >= 160000
    return find_option(name, false, true, ERROR);
#else
    config_generic **settings = get_guc_variables();
    const int count = GetNumConfigOptions();
    for (int i = 0; i < count; ++i)
        if (settings[i] != nullptr && strcmp(settings[i]->name, name) == 0) return settings[i];
    return nullptr;
#endif
}

// Whether path lies inside the data directory.
bool in_data_directory(const char *path) {
    if (DataDir == nullptr || path == nullptr) return false;
    const size_t len = strlen(DataDir);
    return strncmp(path, DataDir, len) == 0 && (path[len] == '/' || path[len] == '\0');
}

}  // namespace

SettingSource setting_source(const char *name, char *buf, size_t size) {
    const config_generic *c = find_setting(name);
    if (c == nullptr || c->source <= PGC_S_DYNAMIC_DEFAULT) {
        strlcpy(buf, "default", size);
        return SettingSource::not_set;
    }
    if (c->source == PGC_S_FILE && c->sourcefile != nullptr) {
        if (in_data_directory(c->sourcefile)) {
            snprintf(buf, size, "data directory file %s", c->sourcefile);
            return SettingSource::data_directory_file;
        }
        snprintf(buf, size, "file %s", c->sourcefile);
        return SettingSource::host_file;
    }
    if (c->source == PGC_S_ARGV || c->source == PGC_S_ENV_VAR) {
        strlcpy(buf, "command line", size);
        return SettingSource::command_line;
    }
    strlcpy(buf, "other", size);
    return SettingSource::other;
}

}  // namespace locality_pg

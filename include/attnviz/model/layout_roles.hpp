// Writing a layout's table of roles: the helpers the built-in layouts and the family records share.
#pragma once

#include <string>
#include <vector>

#include "attnviz/model/layout.hpp"

namespace attnviz::roles {

using Roles = std::vector<RolePattern>;

void add(Roles& r, const std::string& role, const std::string& pattern, bool transpose = false);
// Marks `roles` (already in the table) as ones the family always has: a file without one is
// refused.
void require(Roles& r, const std::vector<std::string>& roles, bool required = true);
// A Linear (or Conv1D) `name` playing `role`: weight and bias.
void linear(Roles& r, const std::string& role, const std::string& name, bool conv1d = false);
void norm(Roles& r, const std::string& role, const std::string& name);

}  // namespace attnviz::roles

// The skills feature: mcp.skills() serves a folder of Agent Skills over MCP (SEP-2640).

import type { RouterFeature } from '../../edge/feature';
import { serveSkills, type McpSkill } from './serve-skills';
import type { SkillsOptions } from './skills-options';

/** What the skills feature adds to `mcp`. */
export interface SkillsApi {
  /** Serves every skill under a folder: see McpRouterApi.skills. */
  skills(options: string | SkillsOptions): readonly McpSkill[];
}

/** Serves skills as resources and the `skills/*` methods, on the host's registry and method table. */
export const skillsFeature: RouterFeature<object, undefined, SkillsApi> = {
  key: 'skills',
  resolve: () => undefined,
  install: (host) => ({
    api: {
      skills: (options) =>
        serveSkills(options, {
          registry: host.registry,
          extend: (table) => host.addMethods(table),
          pageSize: host.pageSize,
          logger: host.logger,
        }),
    },
  }),
};

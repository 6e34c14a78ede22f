// The help topics (`cardctl help <topic>`) as MCP resources: `cardctl-help://<topic>`, plain text.
import { HELP_TOPICS, findHelpTopic } from '../help/topics.js';

export const HELP_SCHEME = 'cardctl-help:';

export interface Resource {
  uri: string;
  name: string;
  description: string;
  mimeType: 'text/plain';
}

export function helpResources(): Resource[] {
  return HELP_TOPICS.map((topic) => ({ uri: `${HELP_SCHEME}//${topic.name}`, name: topic.name, description: topic.summary, mimeType: 'text/plain' }));
}

/** The text of a help resource, or undefined when the URI names none. */
export function readHelpResource(uri: string): { uri: string; mimeType: 'text/plain'; text: string } | undefined {
  const prefix = `${HELP_SCHEME}//`;
  const topic = uri.startsWith(prefix) ? findHelpTopic(uri.slice(prefix.length)) : undefined;
  return topic && { uri, mimeType: 'text/plain', text: topic.text };
}

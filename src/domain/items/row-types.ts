/** Row shapes of items and what hangs off them, as the database and the API hold them (no behaviour). */
import type { components } from '../../generated/api.js';
import type { StoredValues } from '../lists/values.js';

export type ItemRowDto = components['schemas']['ItemRow'];
export type TaskStatus = 'todo' | 'inProgress' | 'completed';
export const TASK_STATUSES: TaskStatus[] = ['todo', 'inProgress', 'completed'];

export interface ItemDbRow {
  id: string;
  owner_id: string;
  list_id: string;
  title: string | null;
  body: string | null;
  task_status: TaskStatus | null;
  due_at: Date | null;
  has_due_time: boolean | null;
  reminder_at: Date | null;
  completed_at: Date | null;
  values: StoredValues;
  external_id: string | null;
  is_template: boolean;
  favorited: boolean;
  guidance_note: string | null;
  /** The agent a task is assigned to, by name (migration 20261122000400_events). */
  assigned_agent: string | null;
  /** The RRULE a task repeats by, its completions and the last one (migration 20261125000500_recurrence). */
  recurrence: string | null;
  recurrence_completions: number;
  last_completed_at: Date | null;
  /** A reminder set before the due date keeps its offset; the reminder time last sent (migration 20261125000700_reminders). */
  reminder_offset_minutes: number | null;
  reminded_at: Date | null;
  /** The item it is a subtask of, and the parent it went to the trash with (migration 20261125000800_subtasks). */
  parent_id: string | null;
  deleted_with_parent: string | null;
  /** Free labels (migration 20261125000600_labels). */
  labels: string[];
  archived_at: Date | null;
  deleted_at: Date | null;
  purges_at: Date | null;
  deleted_with_list: string | null;
  created_at: Date;
  updated_at: Date;
  edited_at: Date | null;
}

export interface AttachmentRow {
  id: string;
  item_id: string;
  bucket_path: string;
  mime_type: string;
  bytes: number | null;
}
export interface ChatRow {
  author_kind: 'person' | 'service' | 'agent';
  author_name: string;
  text: string;
  needs_input: boolean;
}
